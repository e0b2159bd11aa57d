import type { NewAuditEntry } from '../../src/domain/audit-entry';
import { Conflict } from '../../src/domain/errors';
import type { PersonChanges } from '../../src/domain/person';
import type { PersonUpdate } from '../../src/application/ports/unit-of-work';
import {
  type ContractAdapter,
  idsTagged,
  memberIdsTagged,
  newPerson,
  TODAY,
  uniqueTag,
} from './contract-adapter';

/** An update of `id` decided on `version`, with an audit entry per field and a change naming them. */
function updateOf(id: number, version: number, changes: PersonChanges): PersonUpdate {
  const names = { firstName: 'first_name', lastName: 'last_name', chatId: 'chat_id' } as const;
  const keys = Object.keys(changes) as (keyof PersonChanges)[];
  const audit: NewAuditEntry[] = keys.map((key) => ({
    actorAccountId: 7,
    actorKeyId: 42,
    action: 'person.update',
    subjectType: 'person',
    subjectId: id,
    field: names[key],
    oldValue: 'old',
    newValue: changes[key] ?? null,
  }));
  return {
    id,
    version,
    changes,
    audit,
    change: { type: 'person.updated', personId: id, fields: keys.map((key) => names[key]), byKeyId: 42 },
  };
}

/**
 * UnitOfWork: everything done through one transaction commits or rolls back together, and a
 * locking read (findByIdForUpdate) keeps other units off the person until the unit ends. An
 * adapter may run units one at a time instead; these tests hold either way.
 */
export function describeUnitOfWorkContract(adapter: () => ContractAdapter): void {
  const unitOfWork = () => adapter().unitOfWork;
  const outside = () => adapter().repositories;

  describe('UnitOfWork', () => {
    it('commits everything done through the transaction and returns the result', async () => {
      const tag = uniqueTag();

      const result = await unitOfWork().run(async (tx) => {
        await tx.people.insertMany([newPerson({ lastName: tag })]);
        const [person] = await tx.people.search({ filter: { lastName: tag }, today: TODAY }, 1);
        await tx.accounts.create({ username: tag, passwordHash: 'h', permissions: [], personId: person.id });
        await tx.audit.record([
          {
            actorAccountId: null,
            actorKeyId: null,
            action: 'person.import',
            subjectType: 'person',
            subjectId: person.id,
            field: null,
            oldValue: null,
            newValue: tag,
          },
        ]);
        return 'done';
      });

      expect(result).toBe('done');
      const [id] = await memberIdsTagged(adapter(), tag);
      expect(await outside().accounts.findByUsername(tag)).toMatchObject({ personId: id });
      expect((await outside().audit.list({ personId: id })).map((e) => e.newValue)).toEqual([tag]);
    });

    it('rolls back everything when the work throws, and rethrows that same error', async () => {
      const tag = uniqueTag();
      const failure = new Error('the work failed');
      let accountId = 0;

      const attempt = unitOfWork().run(async (tx) => {
        await tx.people.insertMany([newPerson({ lastName: tag, chatId: `${tag}-c` })]);
        const account = await tx.accounts.create({ username: tag, passwordHash: 'h', permissions: [] });
        await tx.audit.record([
          {
            actorAccountId: null,
            actorKeyId: null,
            action: 'account.create',
            subjectType: 'account',
            subjectId: account.personId,
            field: 'username',
            oldValue: null,
            newValue: tag,
          },
        ]);
        accountId = account.personId;
        throw failure;
      });

      await expect(attempt).rejects.toBe(failure);
      expect(await memberIdsTagged(adapter(), tag)).toEqual([]);
      expect(await outside().accounts.findByUsername(tag)).toBeNull();
      expect(await outside().audit.list({ personId: accountId })).toEqual([]);
      expect(await outside().people.chatIdsInUse([`${tag}-c`])).toEqual([]);
    });

    it('rolls back earlier changes when a later one conflicts', async () => {
      const tag = uniqueTag();
      await outside().people.insertMany([
        newPerson({ lastName: `${tag} holder`, chatId: `${tag}-taken` }),
        newPerson({ lastName: `${tag} other` }),
      ]);
      const [, otherId] = await memberIdsTagged(adapter(), tag);

      const attempt = unitOfWork().run(async (tx) => {
        await tx.people.update(otherId, { firstName: 'Changed' });
        await tx.people.insertMany([newPerson({ lastName: `${tag} new` })]);
        await tx.people.update(otherId, { chatId: `${tag}-taken` });
      });

      await expect(attempt).rejects.toBeInstanceOf(Conflict);
      expect(await outside().people.findById(otherId)).toMatchObject({ firstName: 'Ada', version: 1 });
      expect(await memberIdsTagged(adapter(), tag)).toHaveLength(2);
    });

    it('runs later units normally after one has failed', async () => {
      await expect(unitOfWork().run(() => Promise.reject(new Error('x')))).rejects.toThrow('x');

      await expect(unitOfWork().run(async () => 'ok')).resolves.toBe('ok');
    });

    it('makes a second locking read wait until the unit holding the person ends', async () => {
      const tag = uniqueTag();
      await outside().people.insertMany([newPerson({ lastName: tag, firstName: 'Before' })]);
      const [id] = await memberIdsTagged(adapter(), tag);
      let locked!: () => void;
      const firstHoldsLock = new Promise<void>((resolve) => {
        locked = resolve;
      });

      const first = unitOfWork().run(async (tx) => {
        await tx.people.findByIdForUpdate(id);
        locked();
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.people.update(id, { firstName: 'After' });
      });
      await firstHoldsLock;
      const second = unitOfWork().run((tx) => tx.people.findByIdForUpdate(id));

      await first;
      expect((await second)?.firstName).toBe('After');
    });

    it('locks identities too: a second unit reads them, by id, only as the first left them', async () => {
      const tag = uniqueTag();
      await outside().people.insertMany([
        newPerson({ lastName: tag, firstName: 'A' }),
        newPerson({ lastName: tag, firstName: 'B' }),
      ]);
      const [a, b] = await memberIdsTagged(adapter(), tag);
      let locked!: () => void;
      const firstHoldsLock = new Promise<void>((resolve) => {
        locked = resolve;
      });

      const first = unitOfWork().run(async (tx) => {
        expect((await tx.people.lockIdentities([b, a, 2_000_000_000])).map((p) => p.id)).toEqual([a, b]);
        locked();
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.people.erase([b]);
      });
      await firstHoldsLock;
      const second = unitOfWork().run((tx) => tx.people.lockIdentities([b]));

      await first;
      expect(await second).toEqual([expect.objectContaining({ id: b, erased: true })]);
    });

    it('serialises read-then-write units on one person through the locking read', async () => {
      const tag = uniqueTag();
      await outside().people.insertMany([newPerson({ lastName: tag, firstName: '0' })]);
      const [id] = await memberIdsTagged(adapter(), tag);
      const increment = () =>
        unitOfWork().run(async (tx) => {
          const person = await tx.people.findByIdForUpdate(id);
          await new Promise((resolve) => setTimeout(resolve, 5));
          await tx.people.update(id, { firstName: String(Number(person?.firstName) + 1) });
        });

      await Promise.all([increment(), increment(), increment()]);

      expect(await outside().people.findById(id)).toMatchObject({ firstName: '3', version: 4 });
    });

    describe('commitPersonUpdate', () => {
      async function member(tag: string, overrides = {}) {
        await outside().people.insertMany([
          newPerson({
            lastName: tag,
            contacts: [{ kind: 'email', value: `${tag}@example.org`, label: null }],
            ...overrides,
          }),
        ]);
        // The newest: a tag may be part of another test person's.
        return Math.max(...(await idsTagged(adapter(), tag)));
      }
      const written = async (id: number) => ({
        audit: (await outside().audit.list({ personId: id })).map((e) => [e.field, e.newValue, e.actorKeyId]),
        changes: (await outside().changes.listAbout(id)).map((c) => [c.type, c.fields, c.byKeyId]),
      });

      it('writes the change, its audit entries and its change record together, and answers the person', async () => {
        const tag = uniqueTag();
        const id = await member(tag);

        const updated = await unitOfWork().commitPersonUpdate(
          updateOf(id, 1, { firstName: 'Grace', chatId: `${tag}-chat` }),
        );

        expect(updated).toMatchObject({
          id,
          firstName: 'Grace',
          lastName: tag,
          chatId: `${tag}-chat`,
          version: 2,
        });
        expect(updated?.contacts.map((c) => c.value)).toEqual([`${tag}@example.org`]);
        expect(await outside().people.findById(id)).toEqual(updated);
        expect((await written(id)).audit.sort()).toEqual(
          [
            ['chat_id', `${tag}-chat`, 42],
            ['first_name', 'Grace', 42],
          ].sort(),
        );
        expect((await written(id)).changes).toEqual([['person.updated', ['first_name', 'chat_id'], 42]]);
        // The name searches match the new name.
        const found = await outside().people.search(
          { filter: { firstName: 'grace', lastName: tag }, today: TODAY },
          5,
        );
        expect(found.map((p) => p.id)).toEqual([id]);
      });

      it('clears chat_id when given null, and leaves the fields not given as they were', async () => {
        const tag = uniqueTag();
        const id = await member(tag, { firstName: 'Kept', chatId: `${tag}-old` });

        const updated = await unitOfWork().commitPersonUpdate(updateOf(id, 1, { chatId: null }));

        expect(updated).toMatchObject({ firstName: 'Kept', lastName: tag, chatId: null, version: 2 });
      });

      it('writes nothing and answers null when the person is no longer at that version', async () => {
        const tag = uniqueTag();
        const id = await member(tag);
        await unitOfWork().commitPersonUpdate(updateOf(id, 1, { firstName: 'First' }));

        const late = await unitOfWork().commitPersonUpdate(updateOf(id, 1, { firstName: 'Late' }));

        expect(late).toBeNull();
        expect(await outside().people.findById(id)).toMatchObject({ firstName: 'First', version: 2 });
        expect((await written(id)).audit).toHaveLength(1);
        expect((await written(id)).changes).toHaveLength(1);
      });

      it('lets exactly one of two updates decided on the same version through', async () => {
        const tag = uniqueTag();
        const id = await member(tag);

        const results = await Promise.all(
          ['One', 'Two'].map((name) => unitOfWork().commitPersonUpdate(updateOf(id, 1, { firstName: name }))),
        );

        expect(results.filter((r) => r === null)).toHaveLength(1);
        const winner = results.find((r) => r !== null);
        expect(await outside().people.findById(id)).toMatchObject({
          firstName: winner?.firstName,
          version: 2,
        });
        expect((await written(id)).changes).toHaveLength(1);
      });

      it('answers null for an admin or an erased person, and changes neither', async () => {
        const tag = uniqueTag();
        const admin = await member(`${tag}a`, { role: 'admin' });
        const erased = await member(`${tag}e`);
        await outside().people.erase([erased]);
        const erasedVersion = (await outside().people.findById(erased))?.version ?? 0;

        expect(await unitOfWork().commitPersonUpdate(updateOf(admin, 1, { firstName: 'Seen' }))).toBeNull();
        expect(
          await unitOfWork().commitPersonUpdate(updateOf(erased, erasedVersion, { firstName: 'Seen' })),
        ).toBeNull();
        expect(await outside().people.findById(admin)).toMatchObject({ firstName: 'Ada', version: 1 });
        expect((await written(admin)).changes).toEqual([]);
        expect((await written(erased)).audit).toEqual([]);
      });

      it('throws Conflict for a chat_id another member has, and writes nothing', async () => {
        const tag = uniqueTag();
        await member(`${tag}h`, { chatId: `${tag}-taken` });
        const id = await member(tag);

        await expect(
          unitOfWork().commitPersonUpdate(updateOf(id, 1, { firstName: 'Not', chatId: `${tag}-taken` })),
        ).rejects.toBeInstanceOf(Conflict);
        expect(await outside().people.findById(id)).toMatchObject({
          firstName: 'Ada',
          chatId: null,
          version: 1,
        });
        expect(await written(id)).toEqual({ audit: [], changes: [] });
      });
    });
  });
}
