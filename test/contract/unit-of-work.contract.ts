import { Conflict } from '../../src/domain/errors';
import { type ContractAdapter, memberIdsTagged, newPerson, TODAY, uniqueTag } from './contract-adapter';

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
  });
}
