import { Conflict } from '../../../src/domain/errors';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { TypeOrmUnitOfWork } from '../../../src/infrastructure/persistence/typeorm-unit-of-work';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { idsTagged, newPerson, uniqueTag } from './fixtures';

describe.each(testDatabases)('TypeOrmUnitOfWork on $name', (target) => {
  let database: Database;
  let unitOfWork: TypeOrmUnitOfWork;

  beforeAll(async () => {
    database = await openTestDatabase(target);
    unitOfWork = new TypeOrmUnitOfWork(database.dataSource);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('commits everything done through the transaction and returns the result', async () => {
    const tag = uniqueTag();

    const result = await unitOfWork.run(async (tx) => {
      await tx.people.insertMany([newPerson({ lastName: tag })]);
      const [person] = await tx.people.search({ filter: { lastName: tag }, today: '2024-01-01' }, 1);
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
    const [id] = await idsTagged(database, tag);
    const audit = await createRepositories(database.dataSource.manager).audit.list({ personId: id });
    expect(audit.map((e) => e.newValue)).toEqual([tag]);
  });

  it('rolls back everything when the work throws, and rethrows that same error', async () => {
    const tag = uniqueTag();
    const failure = new Error('the work failed');

    const attempt = unitOfWork.run(async (tx) => {
      await tx.people.insertMany([newPerson({ lastName: tag, chatId: `${tag}-c` })]);
      await tx.accounts.create({ username: tag, passwordHash: 'h', permissions: [] });
      throw failure;
    });

    await expect(attempt).rejects.toBe(failure);
    expect(await idsTagged(database, tag)).toEqual([]);
    const outside = createRepositories(database.dataSource.manager);
    expect(await outside.accounts.findByUsername(tag)).toBeNull();
    expect(await outside.people.chatIdsInUse([`${tag}-c`])).toEqual([]);
  });

  it('rolls back earlier changes when a later one conflicts', async () => {
    const tag = uniqueTag();
    await createRepositories(database.dataSource.manager).people.insertMany([
      newPerson({ lastName: `${tag} holder`, chatId: `${tag}-taken` }),
      newPerson({ lastName: `${tag} other` }),
    ]);
    const [, otherId] = await idsTagged(database, tag);

    const attempt = unitOfWork.run(async (tx) => {
      await tx.people.update(otherId, { firstName: 'Changed' });
      await tx.people.update(otherId, { chatId: `${tag}-taken` });
    });

    await expect(attempt).rejects.toBeInstanceOf(Conflict);
    expect(await createRepositories(database.dataSource.manager).people.findById(otherId)).toMatchObject({
      firstName: 'Ada',
      version: 1,
    });
  });
});
