import type { Database } from '../../../src/infrastructure/persistence/database';
import { PoolQueries } from '../../../src/infrastructure/persistence/pool-queries';
import { openTestDatabase, testDatabases } from '../../support/databases';

const PREPARED = 'SELECT name, statement FROM pg_prepared_statements';

describe.each(testDatabases)('reads through the pool on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  }, 60_000);
  afterAll(() => database?.close());

  it('prepare a reusable statement once per connection when asked to, and answer each call with its own values', async () => {
    const reads = new PoolQueries(database.dataSource.manager, true);
    const text = 'SELECT $1::int * 2 AS doubled';

    const answers = [];
    // One after the other: the pool hands out the connection it got back last.
    for (const value of [1, 2, 3]) answers.push(await reads.query<{ doubled: number }>(text, [value], true));
    const prepared = await reads.query<{ name: string; statement: string }>(PREPARED, []);

    expect(answers).toEqual([[{ doubled: 2 }], [{ doubled: 4 }], [{ doubled: 6 }]]);
    expect(prepared).toEqual([{ name: expect.stringMatching(/^read_[0-9a-f]{32}$/), statement: text }]);
  });

  it('prepare nothing when not asked to (PGlite, or a statement planned for its values)', async () => {
    const unnamed = new PoolQueries(database.dataSource.manager, false);
    await unnamed.query('SELECT $1::int + 1 AS next', [1], true);
    const named = new PoolQueries(database.dataSource.manager, true);
    await named.query('SELECT $1::int + 2 AS next', [1], false);

    const prepared = await named.query<{ statement: string }>(PREPARED, []);

    expect(prepared.map((row) => row.statement)).not.toContain('SELECT $1::int + 1 AS next');
    expect(prepared.map((row) => row.statement)).not.toContain('SELECT $1::int + 2 AS next');
  });

  it("run in the manager's transaction when one holds it", async () => {
    const seen = await database.dataSource.transaction(async (manager) => {
      await manager.query('CREATE TABLE pool_queries_probe (n int)');
      await manager.query('INSERT INTO pool_queries_probe VALUES (7)');
      const rows = await new PoolQueries(manager, true).query<{ n: number }>(
        'SELECT n FROM pool_queries_probe',
        [],
        true,
      );
      await manager.query('DROP TABLE pool_queries_probe');
      return rows;
    });

    expect(seen).toEqual([{ n: 7 }]);
  });
});
