import type { PersonUpdate } from '../../../src/application/ports/unit-of-work';
import { Conflict } from '../../../src/domain/errors';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { SqlUnitOfWork } from '../../../src/infrastructure/persistence/sql-unit-of-work';
import { newPerson, uniqueName } from '../../support/app';
import { openTestDatabase, testDatabases } from '../../support/databases';

function renaming(id: number, version: number, firstName: string, chatId?: string): PersonUpdate {
  return {
    id,
    version,
    changes: chatId === undefined ? { firstName } : { firstName, chatId },
    audit: [
      {
        actorAccountId: null,
        actorKeyId: 2,
        action: 'person.update',
        subjectType: 'person',
        subjectId: id,
        field: 'first_name',
        oldValue: 'Ada',
        newValue: firstName,
      },
    ],
    change: { type: 'person.updated', personId: id, fields: ['first_name'], byKeyId: 2 },
  };
}

/**
 * Updates that arrive while a statement runs are written together by the next one: a statement of
 * several must give each update the answer it would have had alone.
 */
describe.each(testDatabases)('people updates written together on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  }, 60_000);
  afterAll(() => database?.close());

  async function people(count: number, chatIdOfFirst?: string): Promise<number[]> {
    const tag = uniqueName('U');
    const repositories = createRepositories(database.dataSource.manager);
    await repositories.people.insertMany(
      Array.from({ length: count }, (_, i) =>
        newPerson({ lastName: `${tag} ${i}`, chatId: i === 0 ? (chatIdOfFirst ?? null) : null }),
      ),
    );
    const found = await repositories.people.search({ filter: { lastName: tag }, today: '2024-06-15' }, 100);
    return found.map((person) => person.id);
  }

  const audited = async (id: number) =>
    (await createRepositories(database.dataSource.manager).audit.list({ personId: id })).length;
  const changed = async (id: number) =>
    (await createRepositories(database.dataSource.manager).changes.listAbout(id)).length;

  it('answer each update of a statement of several as if it had been alone', async () => {
    const unitOfWork = new SqlUnitOfWork(database.dataSource);
    const [first, second, third] = await people(3);

    // The first goes at once; the others come while it runs, and go together.
    const answers = await Promise.all([
      unitOfWork.commitPersonUpdate(renaming(first, 1, 'Alone')),
      unitOfWork.commitPersonUpdate(renaming(second, 1, 'One')),
      unitOfWork.commitPersonUpdate(renaming(third, 1, 'Three')),
      unitOfWork.commitPersonUpdate(renaming(second, 1, 'Two')),
    ]);

    expect(answers[0]).toMatchObject({ id: first, firstName: 'Alone', version: 2 });
    expect(answers[2]).toMatchObject({ id: third, firstName: 'Three', version: 2 });
    // Two updates of one person decided on one version: one goes through, the other is told no.
    const [one, two] = [answers[1], answers[3]];
    expect([one, two].filter((answer) => answer === null)).toHaveLength(1);
    expect(one ?? two).toMatchObject({ id: second, version: 2 });
    for (const id of [first, second, third]) {
      expect([await audited(id), await changed(id)]).toEqual([1, 1]);
    }
  });

  it('fail only the update that fails, when one of a statement of several does', async () => {
    const taken = uniqueName('chat');
    const unitOfWork = new SqlUnitOfWork(database.dataSource);
    const [holder, blocked, other] = await people(3, taken);

    const answers = await Promise.allSettled([
      unitOfWork.commitPersonUpdate(renaming(holder, 1, 'Holder')),
      unitOfWork.commitPersonUpdate(renaming(blocked, 1, 'Blocked', taken)),
      unitOfWork.commitPersonUpdate(renaming(other, 1, 'Other')),
    ]);

    expect(answers[0]).toMatchObject({ status: 'fulfilled', value: { firstName: 'Holder' } });
    expect(answers[1]).toMatchObject({ status: 'rejected' });
    expect((answers[1] as PromiseRejectedResult).reason).toBeInstanceOf(Conflict);
    expect(answers[2]).toMatchObject({ status: 'fulfilled', value: { firstName: 'Other' } });
    expect([await audited(blocked), await changed(blocked)]).toEqual([0, 0]);
    expect([await audited(other), await changed(other)]).toEqual([1, 1]);
  });
});
