import type { Person } from '../../../src/domain/person';
import { ConcurrencyLimit } from '../../../src/infrastructure/persistence/concurrency-limit';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { newPerson, uniqueName } from '../../support/app';

const today = '2024-06-15';
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

/** The batches a stream reads while its lane is taken by someone else, and once it is free. */
describe.each(testDatabases)('streamed results on $name', (target) => {
  let database: Database;
  const tag = uniqueName('S');

  beforeAll(async () => {
    database = await openTestDatabase(target);
    // More than one batch: the first is 1000 people.
    await createRepositories(database.dataSource.manager).people.insertMany(
      Array.from({ length: 1300 }, (_, i) => newPerson({ lastName: `${tag} ${i}` })),
    );
  }, 60_000);
  afterAll(() => database?.close());

  it('read their first batch at once and take turns for the later ones, so lookups never wait for them', async () => {
    const lane = new ConcurrencyLimit(1);
    const { people } = createRepositories(database.dataSource.manager, {
      streaming: { lane, laterBatchSize: 100 },
    });
    let release!: () => void;
    const busy = lane.run(() => new Promise<void>((resolve) => (release = resolve)));

    const read: Person[] = [];
    const reading = (async () => {
      for await (const person of people.stream({ filter: { lastName: tag }, today })) read.push(person);
    })();
    await settle();
    expect(read).toHaveLength(1000);
    // A lookup does not queue behind the stream.
    await expect(people.findById(read[0].id)).resolves.toMatchObject({ id: read[0].id });

    release();
    await Promise.all([busy, reading]);
    expect(read).toHaveLength(1300);
    expect(read.map((person) => person.id)).toEqual(
      [...read.map((person) => person.id)].sort((a, b) => a - b),
    );
  }, 30_000);
});
