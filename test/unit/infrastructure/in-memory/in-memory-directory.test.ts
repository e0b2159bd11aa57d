import type { PersonFilter } from '../../../../src/domain/person-filter';
import { Conflict } from '../../../../src/domain/errors';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { addAccount, addPerson, collect } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';

const TODAY = '2025-03-15';

async function ids(directory: InMemoryDirectory, filter: PersonFilter): Promise<number[]> {
  return (await directory.people.search({ filter, today: TODAY }, 1000)).map((p) => p.id);
}

describe('InMemoryDirectory people', () => {
  it('matches email case-insensitively and exactly, against any email contact only', async () => {
    const directory = new InMemoryDirectory();
    const ann = await addPerson(directory, {
      contacts: [
        { kind: 'phone', value: 'bob@example.org', label: null },
        { kind: 'email', value: 'Ann@Example.org', label: null },
      ],
    });
    await addPerson(directory, { contacts: [{ kind: 'phone', value: 'ann@example.org', label: null }] });
    expect(await ids(directory, { email: 'ann@EXAMPLE.org' })).toEqual([ann.id]);
    expect(await ids(directory, { email: 'ann@example' })).toEqual([]);
    expect(await ids(directory, { email: 'bob@example.org' })).toEqual([]);
  });

  it('matches names as case-insensitive substrings where % _ and \\ are plain characters', async () => {
    const directory = new InMemoryDirectory();
    const percent = await addPerson(directory, { firstName: 'Ann%e', lastName: 'O_Neil' });
    const plain = await addPerson(directory, { firstName: 'Annie', lastName: 'ONeil' });
    const slash = await addPerson(directory, { firstName: 'Back\\slash', lastName: 'X' });
    expect(await ids(directory, { firstName: 'ANN' })).toEqual([percent.id, plain.id]);
    expect(await ids(directory, { firstName: 'n%' })).toEqual([percent.id]);
    expect(await ids(directory, { lastName: 'o_n' })).toEqual([percent.id]);
    expect(await ids(directory, { firstName: 'k\\s' })).toEqual([slash.id]);
    expect(await ids(directory, { firstName: 'Ann', lastName: 'oneil' })).toEqual([plain.id]);
  });

  it('matches chat_id exactly and case-sensitively', async () => {
    const directory = new InMemoryDirectory();
    const ann = await addPerson(directory, { chatId: 'Ann42' });
    expect(await ids(directory, { chatId: 'Ann42' })).toEqual([ann.id]);
    expect(await ids(directory, { chatId: 'ann42' })).toEqual([]);
    expect(await ids(directory, { chatId: 'Ann4' })).toEqual([]);
  });

  it('counts a membership as current from its start to its end date, both inclusive', async () => {
    const directory = new InMemoryDirectory();
    const m = (startDate: string, endDate: string | null) => [
      { club: 'Astro', kind: null, startDate, endDate },
    ];
    const endsToday = await addPerson(directory, { memberships: m('2024-01-01', TODAY) });
    const startsToday = await addPerson(directory, { memberships: m(TODAY, null) });
    const ended = await addPerson(directory, { memberships: m('2024-01-01', '2025-03-14') });
    const future = await addPerson(directory, { memberships: m('2025-03-16', null) });
    const none = await addPerson(directory);
    expect(await ids(directory, { active: 'yes' })).toEqual([endsToday.id, startsToday.id]);
    expect(await ids(directory, { active: 'no' })).toEqual([ended.id, future.id, none.id]);
  });

  it('filters on whether chat_id and planner_id are set', async () => {
    const directory = new InMemoryDirectory();
    const chat = await addPerson(directory, { chatId: 'c' });
    const planner = await addPerson(directory, { plannerId: 'p' });
    expect(await ids(directory, { hasChat: true })).toEqual([chat.id]);
    expect(await ids(directory, { hasChat: false })).toEqual([planner.id]);
    expect(await ids(directory, { hasPlanner: true, hasChat: false })).toEqual([planner.id]);
  });

  it('leaves admins out of search and stream but not out of findById and streamAll', async () => {
    const directory = new InMemoryDirectory();
    const admin = await addPerson(directory, { role: 'admin' });
    const ann = await addPerson(directory);
    expect(await ids(directory, {})).toEqual([ann.id]);
    expect((await collect(directory.people.stream({ filter: {}, today: TODAY }))).map((p) => p.id)).toEqual([
      ann.id,
    ]);
    expect((await collect(directory.people.streamAll())).map((p) => p.id)).toEqual([admin.id, ann.id]);
    expect(await directory.people.findById(admin.id)).toMatchObject({ role: 'admin' });
  });

  it('streams every match in id order across batches, after the given id', async () => {
    const directory = new InMemoryDirectory();
    const people = [];
    for (let i = 0; i < 250; i++) people.push(await addPerson(directory));
    const streamed = await collect(
      directory.people.stream({ filter: {}, today: TODAY, after: people[9].id }),
    );
    expect(streamed.map((p) => p.id)).toEqual(people.slice(10).map((p) => p.id));
  });

  it('orders contacts by kind then id, and memberships by start date then id', async () => {
    const directory = new InMemoryDirectory();
    const ann = await addPerson(directory, {
      contacts: [
        { kind: 'address', value: 'a', label: null },
        { kind: 'email', value: 'e2', label: null },
        { kind: 'phone', value: 'p', label: null },
        { kind: 'email', value: 'e1', label: null },
      ],
      memberships: [
        { club: 'B', kind: null, startDate: '2024-05-01', endDate: null },
        { club: 'A', kind: null, startDate: '2023-01-01', endDate: null },
        { club: 'C', kind: null, startDate: '2024-05-01', endDate: null },
      ],
    });
    expect(ann.contacts.map((c) => c.value)).toEqual(['e2', 'e1', 'p', 'a']);
    expect(ann.memberships.map((m) => m.club.name)).toEqual(['A', 'B', 'C']);
  });

  it('shares one club between people who name it alike', async () => {
    const directory = new InMemoryDirectory();
    const membership = [{ club: 'Astro', kind: null, startDate: '2024-01-01', endDate: null }];
    const ann = await addPerson(directory, { memberships: membership });
    const bob = await addPerson(directory, { memberships: membership });
    expect(ann.memberships[0].club).toEqual(bob.memberships[0].club);
  });

  it('bumps the version on update and refuses a chat_id another person has', async () => {
    const directory = new InMemoryDirectory();
    await addPerson(directory, { chatId: 'taken' });
    const ann = await addPerson(directory);
    await directory.people.update(ann.id, { firstName: 'Anne' });
    expect(await directory.people.findById(ann.id)).toMatchObject({ firstName: 'Anne', version: 2 });
    await expect(directory.people.update(ann.id, { chatId: 'taken' })).rejects.toThrow(Conflict);
    expect(await directory.people.chatIdsInUse(['taken', 'free'])).toEqual(['taken']);
  });

  it('keeps chat_id unique among visible people only: an admin neither blocks a member nor is blocked', async () => {
    const directory = new InMemoryDirectory();
    await addPerson(directory, { role: 'admin', chatId: 'shared' });
    expect(await directory.people.chatIdsInUse(['shared'])).toEqual([]);
    const ann = await addPerson(directory, { chatId: 'shared' });
    await addPerson(directory, { role: 'admin', chatId: 'shared' });
    expect(await directory.people.chatIdsInUse(['shared'])).toEqual(['shared']);

    const bob = await addPerson(directory);
    await expect(directory.people.update(bob.id, { chatId: 'shared' })).rejects.toThrow(Conflict);
    await directory.people.update(ann.id, { chatId: null });
    await directory.people.update(bob.id, { chatId: 'shared' });
    expect(await directory.people.findById(bob.id)).toMatchObject({ chatId: 'shared' });
  });

  it('refuses an import with a chat_id in use or repeated within it', async () => {
    const directory = new InMemoryDirectory();
    await addPerson(directory, { chatId: 'taken' });
    await expect(addPerson(directory, { chatId: 'taken' })).rejects.toThrow(Conflict);
    const person = {
      role: 'member' as const,
      firstName: 'A',
      lastName: 'B',
      plannerId: null,
      contacts: [],
      memberships: [],
    };
    await expect(
      directory.people.insertMany([
        { ...person, chatId: 'twice' },
        { ...person, chatId: 'twice' },
      ]),
    ).rejects.toThrow(Conflict);
    expect(await directory.people.count()).toBe(1);
  });

  it('hands out copies, so changing a result does not change the store', async () => {
    const directory = new InMemoryDirectory();
    const ann = await addPerson(directory, { firstName: 'Ann' });
    ann.firstName = 'Changed';
    expect(await directory.people.findById(ann.id)).toMatchObject({ firstName: 'Ann' });
  });
});

describe('InMemoryDirectory accounts and keys', () => {
  it('refuses a username already taken and a second account for one person', async () => {
    const directory = new InMemoryDirectory();
    const ann = await addAccount(directory, { username: 'ann' });
    await expect(addAccount(directory, { username: 'ann' })).rejects.toThrow(Conflict);
    await expect(
      directory.accounts.create({
        username: 'other',
        passwordHash: 'h',
        permissions: [],
        personId: ann.personId,
      }),
    ).rejects.toThrow(Conflict);
  });

  it('lists accounts by username with their active key counts', async () => {
    const clock = new FakeClock();
    const directory = new InMemoryDirectory(clock);
    const bob = await addAccount(directory, { username: 'bob' });
    await addAccount(directory, { username: 'ann' });
    const key = { name: null, prefix: 'mdk_x', permissions: [], createdAt: clock.now(), expiresAt: null };
    await directory.keys.create({ ...key, accountId: bob.personId, tokenHash: 'h1' });
    const revoked = await directory.keys.create({ ...key, accountId: bob.personId, tokenHash: 'h2' });
    await directory.keys.revoke(revoked.id, clock.now());
    const list = await directory.accounts.list(clock.now());
    expect(list.map((a) => [a.username, a.activeKeyCount])).toEqual([
      ['ann', 0],
      ['bob', 1],
    ]);
  });

  it('refuses a second key with the same token hash and never returns the hash', async () => {
    const clock = new FakeClock();
    const directory = new InMemoryDirectory(clock);
    const ann = await addAccount(directory);
    const key = {
      accountId: ann.personId,
      name: null,
      prefix: 'mdk_x',
      permissions: [],
      createdAt: clock.now(),
    };
    const created = await directory.keys.create({ ...key, tokenHash: 'same', expiresAt: null });
    expect(created).not.toHaveProperty('tokenHash');
    await expect(directory.keys.create({ ...key, tokenHash: 'same', expiresAt: null })).rejects.toThrow(
      Conflict,
    );
  });
});

describe('InMemoryDirectory unit of work', () => {
  it('undoes everything a unit did when it throws', async () => {
    const directory = new InMemoryDirectory();
    const ann = await addPerson(directory, { firstName: 'Ann' });
    await expect(
      directory.unitOfWork.run(async (tx) => {
        await tx.people.update(ann.id, { firstName: 'Changed' });
        await tx.audit.record([
          {
            actorAccountId: null,
            actorKeyId: null,
            action: 'person.update',
            subjectType: 'person',
            subjectId: ann.id,
            field: 'first_name',
            oldValue: 'Ann',
            newValue: 'Changed',
          },
        ]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await directory.people.findById(ann.id)).toMatchObject({ firstName: 'Ann', version: 1 });
    expect(await directory.audit.list({})).toEqual([]);
  });

  it('runs units one after another, so a read-then-write cannot interleave', async () => {
    const directory = new InMemoryDirectory();
    const ann = await addPerson(directory, { firstName: '0' });
    const increment = () =>
      directory.unitOfWork.run(async (tx) => {
        const person = await tx.people.findByIdForUpdate(ann.id);
        await new Promise((resolve) => setTimeout(resolve, 1));
        await tx.people.update(ann.id, { firstName: String(Number(person!.firstName) + 1) });
      });
    await Promise.all([increment(), increment(), increment()]);
    expect(await directory.people.findById(ann.id)).toMatchObject({ firstName: '3', version: 4 });
  });

  it('keeps running units after one has failed', async () => {
    const directory = new InMemoryDirectory();
    await expect(directory.unitOfWork.run(async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(directory.unitOfWork.run(async () => 'ok')).resolves.toBe('ok');
  });
});

describe('InMemoryDirectory audit log', () => {
  it('lists newest first, about a person or by an account, since a time, up to a limit', async () => {
    const clock = new FakeClock();
    const directory = new InMemoryDirectory(clock);
    const entry = (subjectId: number, actorAccountId: number | null) => ({
      actorAccountId,
      actorKeyId: null,
      action: 'person.update',
      subjectType: 'person',
      subjectId,
      field: 'first_name',
      oldValue: 'a',
      newValue: 'b',
    });
    await directory.audit.record([entry(1, null)]);
    clock.advance(1000);
    const since = clock.now();
    await directory.audit.record([entry(2, 1)]);
    clock.advance(1000);
    await directory.audit.record([entry(3, null)]);

    expect((await directory.audit.list({ personId: 1 })).map((e) => e.subjectId)).toEqual([2, 1]);
    expect((await directory.audit.list({ since })).map((e) => e.subjectId)).toEqual([3, 2]);
    expect((await directory.audit.list({ limit: 1 })).map((e) => e.subjectId)).toEqual([3]);
  });
});
