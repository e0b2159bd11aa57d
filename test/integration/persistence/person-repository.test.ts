import type { PersonRepository } from '../../../src/application/ports/person-repository';
import type { Person } from '../../../src/domain/person';
import type { PersonFilter } from '../../../src/domain/person-filter';
import { Conflict, NotFound } from '../../../src/domain/errors';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { TypeOrmUnitOfWork } from '../../../src/infrastructure/persistence/typeorm-unit-of-work';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { idsTagged, newPerson, uniqueTag } from './fixtures';

const today = '2024-06-15';

describe.each(testDatabases)('TypeOrmPersonRepository on $name', (target) => {
  let database: Database;
  let people: PersonRepository;

  beforeAll(async () => {
    database = await openTestDatabase(target);
    people = createRepositories(database.dataSource.manager).people;
  });

  afterAll(async () => {
    await database?.close();
  });

  /** Searches among the people of one test only: their last names carry its tag. */
  async function lastNamesMatching(tag: string, filter: PersonFilter): Promise<string[]> {
    const found = await people.search({ filter: { lastName: tag, ...filter }, today }, 1000);
    return found.map((person) => person.lastName.replace(tag, '').trim());
  }

  async function all(iterable: AsyncIterable<Person>): Promise<Person[]> {
    const result: Person[] = [];
    for await (const person of iterable) result.push(person);
    return result;
  }

  describe('search filters', () => {
    it('matches email case-insensitively and exactly, against email contacts only', async () => {
      const tag = uniqueTag();
      await people.insertMany([
        newPerson({
          lastName: `${tag} work`,
          contacts: [
            { kind: 'phone', value: '+44 1', label: null },
            { kind: 'email', value: 'Ada@Example.org', label: 'work' },
          ],
        }),
        newPerson({
          lastName: `${tag} longer`,
          contacts: [{ kind: 'email', value: 'ada@example.org.uk', label: null }],
        }),
        newPerson({
          lastName: `${tag} phone`,
          contacts: [{ kind: 'phone', value: 'ada@example.org', label: null }],
        }),
      ]);

      expect(await lastNamesMatching(tag, { email: 'ada@EXAMPLE.org' })).toEqual(['work']);
      expect(await lastNamesMatching(tag, { email: 'ada@example' })).toEqual([]);
    });

    it('matches first and last names as case-insensitive substrings', async () => {
      const tag = uniqueTag();
      await people.insertMany([
        newPerson({ firstName: 'Grace', lastName: `${tag} Hopper` }),
        newPerson({ firstName: 'Ada', lastName: `${tag} Lovelace` }),
      ]);

      expect(await lastNamesMatching(tag, { firstName: 'RAC' })).toEqual(['Hopper']);
      expect(await people.search({ filter: { lastName: `${tag} hOP` }, today }, 10)).toHaveLength(1);
      expect(await lastNamesMatching(tag, { firstName: 'Grace Hopper' })).toEqual([]);
    });

    it('treats %, _ and \\ in a name filter as themselves', async () => {
      const tag = uniqueTag();
      await people.insertMany([
        newPerson({ firstName: '100% sure', lastName: `${tag} percent` }),
        newPerson({ firstName: 'a_b', lastName: `${tag} underscore` }),
        newPerson({ firstName: 'back\\slash', lastName: `${tag} backslash` }),
        newPerson({ firstName: 'plain axb', lastName: `${tag} plain` }),
      ]);

      expect(await lastNamesMatching(tag, { firstName: '%' })).toEqual(['percent']);
      expect(await lastNamesMatching(tag, { firstName: '_' })).toEqual(['underscore']);
      expect(await lastNamesMatching(tag, { firstName: '\\' })).toEqual(['backslash']);
      expect(await lastNamesMatching(tag, { firstName: 'a_b' })).toEqual(['underscore']);
    });

    it('matches chat_id exactly and case-sensitively', async () => {
      const tag = uniqueTag();
      await people.insertMany([
        newPerson({ lastName: `${tag} lower`, chatId: `${tag}-chat` }),
        newPerson({ lastName: `${tag} upper`, chatId: `${tag}-CHAT` }),
      ]);

      expect(await lastNamesMatching(tag, { chatId: `${tag}-chat` })).toEqual(['lower']);
      expect(await lastNamesMatching(tag, { chatId: `${tag}-ch` })).toEqual([]);
    });

    it('decides active from memberships current today, both ends inclusive', async () => {
      const tag = uniqueTag();
      const membership = (startDate: string, endDate: string | null) => ({
        club: `Club ${tag}`,
        kind: null,
        startDate,
        endDate,
      });
      await people.insertMany([
        newPerson({ lastName: `${tag} starts-today`, memberships: [membership(today, null)] }),
        newPerson({ lastName: `${tag} ends-today`, memberships: [membership('2020-01-01', today)] }),
        newPerson({
          lastName: `${tag} ended-yesterday`,
          memberships: [membership('2020-01-01', '2024-06-14')],
        }),
        newPerson({ lastName: `${tag} starts-tomorrow`, memberships: [membership('2024-06-16', null)] }),
        newPerson({ lastName: `${tag} none` }),
        newPerson({
          lastName: `${tag} old-and-current`,
          memberships: [membership('2010-01-01', '2011-01-01'), membership('2024-01-01', '2024-12-31')],
        }),
      ]);

      expect(await lastNamesMatching(tag, { active: 'yes' })).toEqual([
        'starts-today',
        'ends-today',
        'old-and-current',
      ]);
      expect(await lastNamesMatching(tag, { active: 'no' })).toEqual([
        'ended-yesterday',
        'starts-tomorrow',
        'none',
      ]);
    });

    it('filters on having a chat_id or a planner_id', async () => {
      const tag = uniqueTag();
      await people.insertMany([
        newPerson({ lastName: `${tag} chat`, chatId: `${tag}-c` }),
        newPerson({ lastName: `${tag} planner`, plannerId: 'p-1' }),
        newPerson({ lastName: `${tag} neither` }),
      ]);

      expect(await lastNamesMatching(tag, { hasChat: true })).toEqual(['chat']);
      expect(await lastNamesMatching(tag, { hasChat: false })).toEqual(['planner', 'neither']);
      expect(await lastNamesMatching(tag, { hasPlanner: true })).toEqual(['planner']);
      expect(await lastNamesMatching(tag, { hasPlanner: false, hasChat: false })).toEqual(['neither']);
    });

    it('never returns admins', async () => {
      const tag = uniqueTag();
      await people.insertMany([
        newPerson({ lastName: `${tag} admin`, role: 'admin', chatId: `${tag}-admin` }),
        newPerson({ lastName: `${tag} member` }),
      ]);

      expect(await lastNamesMatching(tag, {})).toEqual(['member']);
      expect(await lastNamesMatching(tag, { chatId: `${tag}-admin` })).toEqual([]);
      expect(await all(people.stream({ filter: { lastName: tag }, today }))).toHaveLength(1);
    });

    it('takes a filter value as data, never as SQL', async () => {
      const tag = uniqueTag();
      await people.insertMany([newPerson({ lastName: tag })]);

      expect(await lastNamesMatching(tag, { firstName: "'; DROP TABLE people; --" })).toEqual([]);
      expect(await people.count()).toBeGreaterThan(0);
    });
  });

  describe('order and paging', () => {
    it('returns people by id, at most limit, after a given id', async () => {
      const tag = uniqueTag();
      await people.insertMany(
        ['a', 'b', 'c', 'd', 'e'].map((name) => newPerson({ lastName: `${tag} ${name}` })),
      );
      const ids = await idsTagged(database, tag);

      const first = await people.search({ filter: { lastName: tag }, today }, 2);
      expect(first.map((p) => p.id)).toEqual(ids.slice(0, 2));
      const next = await people.search({ filter: { lastName: tag }, today, after: first[1].id }, 2);
      expect(next.map((p) => p.id)).toEqual(ids.slice(2, 4));
      expect(await lastNamesMatching(tag, {})).toEqual(['a', 'b', 'c', 'd', 'e']);
    });

    it('shows contacts by kind then id, and memberships by start date then id', async () => {
      const tag = uniqueTag();
      await people.insertMany([
        newPerson({
          lastName: tag,
          contacts: [
            { kind: 'address', value: '1 Road\nTown', label: null },
            { kind: 'phone', value: '2', label: null },
            { kind: 'email', value: 'b@example.org', label: 'second' },
            { kind: 'email', value: 'a@example.org', label: 'first' },
          ],
          memberships: [
            { club: `Late ${tag}`, kind: 'full', startDate: '2022-01-01', endDate: null },
            { club: `Early ${tag}`, kind: null, startDate: '2019-05-01', endDate: '2020-04-30' },
          ],
        }),
      ]);

      const [person] = await people.search({ filter: { lastName: tag }, today }, 1);
      expect(person.contacts.map((c) => [c.kind, c.value, c.label])).toEqual([
        ['email', 'b@example.org', 'second'],
        ['email', 'a@example.org', 'first'],
        ['phone', '2', null],
        ['address', '1 Road\nTown', null],
      ]);
      expect(person.memberships.map((m) => [m.club.name, m.kind, m.startDate, m.endDate])).toEqual([
        [`Early ${tag}`, null, '2019-05-01', '2020-04-30'],
        [`Late ${tag}`, 'full', '2022-01-01', null],
      ]);
    });
  });

  describe('streams', () => {
    it('streams every match by id across several batches', async () => {
      const tag = uniqueTag();
      const count = 2345;
      await people.insertMany(
        Array.from({ length: count }, (_, i) =>
          newPerson({ lastName: `${tag} ${i}`, chatId: `${tag}-${i}` }),
        ),
      );

      const streamed = await all(people.stream({ filter: { lastName: tag }, today }));

      expect(streamed.map((p) => p.id)).toEqual(await idsTagged(database, tag));
      expect(streamed).toHaveLength(count);
      expect(streamed[count - 1].chatId).toBe(`${tag}-${count - 1}`);
    });

    it('leaves the database free for other work between batches', async () => {
      const tag = uniqueTag();
      await people.insertMany(Array.from({ length: 1500 }, (_, i) => newPerson({ lastName: `${tag} ${i}` })));

      let seen = 0;
      for await (const person of people.stream({ filter: { lastName: tag }, today })) {
        seen += 1;
        if (seen === 1) await people.update(person.id, { firstName: 'Changed' });
      }

      expect(seen).toBe(1500);
    });

    it('streams everyone, admins included, from streamAll', async () => {
      const tag = uniqueTag();
      await people.insertMany([
        newPerson({ lastName: `${tag} admin`, role: 'admin' }),
        newPerson({ lastName: `${tag} member` }),
      ]);

      const everyone = await all(people.streamAll());
      const mine = everyone.filter((p) => p.lastName.includes(tag));

      expect(mine.map((p) => p.role)).toEqual(['admin', 'member']);
      expect(everyone.map((p) => p.id)).toEqual([...everyone.map((p) => p.id)].sort((a, b) => a - b));
      expect(everyone).toHaveLength(await people.count());
    });
  });

  describe('reading one person', () => {
    it('finds a person by id, admins included, and null for an unknown id', async () => {
      const tag = uniqueTag();
      await people.insertMany([newPerson({ lastName: tag, role: 'admin', plannerId: 'planner-7' })]);
      const [id] = await idsTagged(database, tag);

      expect(await people.findById(id)).toEqual({
        id,
        role: 'admin',
        firstName: 'Ada',
        lastName: tag,
        chatId: null,
        plannerId: 'planner-7',
        version: 1,
        contacts: [],
        memberships: [],
      });
      expect(await people.findById(2_000_000_000)).toBeNull();
    });

    it('makes a second locking read wait until the first unit of work ends', async () => {
      const tag = uniqueTag();
      await people.insertMany([newPerson({ lastName: tag, firstName: 'Before' })]);
      const [id] = await idsTagged(database, tag);
      const unitOfWork = new TypeOrmUnitOfWork(database.dataSource);
      let locked!: () => void;
      const firstHoldsLock = new Promise<void>((resolve) => {
        locked = resolve;
      });

      const first = unitOfWork.run(async (tx) => {
        await tx.people.findByIdForUpdate(id);
        locked();
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.people.update(id, { firstName: 'After' });
      });
      await firstHoldsLock;
      const second = unitOfWork.run((tx) => tx.people.findByIdForUpdate(id));

      await first;
      expect((await second)?.firstName).toBe('After');
    });
  });

  describe('update', () => {
    it('changes the given fields, bumps the version and leaves the rest', async () => {
      const tag = uniqueTag();
      await people.insertMany([newPerson({ lastName: tag, chatId: `${tag}-old` })]);
      const [id] = await idsTagged(database, tag);

      await people.update(id, { firstName: 'Augusta', chatId: null });
      const after = await people.findById(id);

      expect(after).toMatchObject({ firstName: 'Augusta', lastName: tag, chatId: null, version: 2 });
      await people.update(id, { chatId: `${tag}-new` });
      expect(await people.findById(id)).toMatchObject({ chatId: `${tag}-new`, version: 3 });
    });

    it('refuses a chat_id another person has, with Conflict', async () => {
      const tag = uniqueTag();
      await people.insertMany([
        newPerson({ lastName: `${tag} a`, chatId: `${tag}-taken` }),
        newPerson({ lastName: `${tag} b` }),
      ]);
      const [, idB] = await idsTagged(database, tag);

      const attempt = people.update(idB, { chatId: `${tag}-taken` });

      await expect(attempt).rejects.toBeInstanceOf(Conflict);
      await expect(attempt).rejects.toThrow('chat_id is already used by another person');
      expect(await people.findById(idB)).toMatchObject({ chatId: null, version: 1 });
    });

    it('keeps chat_id unique among members only: an admin neither blocks a member nor is blocked', async () => {
      const tag = uniqueTag();
      const shared = `${tag}-shared`;
      await people.insertMany([
        newPerson({ lastName: `${tag} admin`, role: 'admin', chatId: shared }),
        newPerson({ lastName: `${tag} ann`, chatId: shared }),
        newPerson({ lastName: `${tag} admin2`, role: 'admin', chatId: shared }),
        newPerson({ lastName: `${tag} bob` }),
      ]);
      const [, ann, , bob] = await idsTagged(database, tag);
      expect(await people.chatIdsInUse([shared])).toEqual([shared]);

      // The database itself refuses two members, even past the use case's check.
      await expect(people.update(bob, { chatId: shared })).rejects.toThrow(
        'chat_id is already used by another person',
      );
      await people.update(ann, { chatId: null });
      expect(await people.chatIdsInUse([shared])).toEqual([]);
      await people.update(bob, { chatId: shared });
      expect(await people.findById(bob)).toMatchObject({ chatId: shared });
    });

    it('keeps a person own chat_id without a conflict', async () => {
      const tag = uniqueTag();
      await people.insertMany([newPerson({ lastName: tag, chatId: `${tag}-mine` })]);
      const [id] = await idsTagged(database, tag);

      await people.update(id, { chatId: `${tag}-mine` });

      expect(await people.findById(id)).toMatchObject({ chatId: `${tag}-mine`, version: 2 });
    });

    it('reports an unknown person with NotFound', async () => {
      await expect(people.update(2_000_000_000, { firstName: 'X' })).rejects.toBeInstanceOf(NotFound);
    });
  });

  describe('insertMany', () => {
    it('creates each club once by name and reuses existing ones', async () => {
      const tag = uniqueTag();
      const club = `Astronomers ${tag}`;
      const member = (name: string) =>
        newPerson({
          lastName: `${tag} ${name}`,
          memberships: [{ club, kind: null, startDate: '2024-01-01', endDate: null }],
        });
      await people.insertMany([member('a'), member('b')]);
      await people.insertMany([member('c')]);

      const found = await people.search({ filter: { lastName: tag }, today }, 10);
      const clubs = found.map((p) => p.memberships[0].club);

      expect(clubs.map((c) => c.name)).toEqual([club, club, club]);
      expect(new Set(clubs.map((c) => c.id)).size).toBe(1);
    });

    it('keeps the order of the input in the ids, with names, contacts and memberships', async () => {
      const tag = uniqueTag();
      const input = Array.from({ length: 12 }, (_, i) =>
        newPerson({
          firstName: `F${i}`,
          lastName: `${tag} ${i}`,
          chatId: i % 2 === 0 ? `${tag}-${i}` : null,
          plannerId: i % 3 === 0 ? `p${i}` : null,
          contacts: [{ kind: 'email', value: `p${i}@example.org`, label: null }],
          memberships: [
            { club: `Club ${tag} ${i % 2}`, kind: 'full', startDate: '2023-03-01', endDate: '2025-02-28' },
          ],
        }),
      );
      await people.insertMany(input);

      const found = await people.search({ filter: { lastName: tag }, today }, 100);

      expect(
        found.map((p) => [
          p.firstName,
          p.chatId,
          p.plannerId,
          p.contacts[0].value,
          p.memberships[0].club.name,
        ]),
      ).toEqual(
        input.map((p) => [p.firstName, p.chatId, p.plannerId, p.contacts[0].value, p.memberships[0].club]),
      );
    });

    it('refuses a chat_id in use with Conflict, and a unit of work then keeps nothing', async () => {
      const tag = uniqueTag();
      await people.insertMany([newPerson({ lastName: `${tag} first`, chatId: `${tag}-dup` })]);
      const unitOfWork = new TypeOrmUnitOfWork(database.dataSource);

      const attempt = unitOfWork.run((tx) =>
        tx.people.insertMany([
          newPerson({ lastName: `${tag} ok` }),
          newPerson({ lastName: `${tag} dup`, chatId: `${tag}-dup` }),
        ]),
      );

      await expect(attempt).rejects.toBeInstanceOf(Conflict);
      expect(await lastNamesMatching(tag, {})).toEqual(['first']);
    });

    it('reports which chat_ids are in use', async () => {
      const tag = uniqueTag();
      await people.insertMany([newPerson({ lastName: tag, chatId: `${tag}-used` })]);

      expect(await people.chatIdsInUse([`${tag}-used`, `${tag}-free`])).toEqual([`${tag}-used`]);
      expect(await people.chatIdsInUse([])).toEqual([]);
    });

    it('counts every person, admins included', async () => {
      const before = await people.count();
      await people.insertMany([newPerson({ role: 'admin' }), newPerson()]);

      expect(await people.count()).toBe(before + 2);
    });
  });
});
