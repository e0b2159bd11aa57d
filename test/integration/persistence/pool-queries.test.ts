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
    expect(prepared).toEqual([
      { name: expect.stringMatching(/^read_[0-9a-f]{32}_[0-9]+$/), statement: text },
    ]);
  });

  it('prepare a statement again when the session lost it (a tool beside the embedded service deallocated it)', async () => {
    const reads = new PoolQueries(database.dataSource.manager, true);
    const text = 'SELECT $1::int * 3 AS tripled';
    expect(await reads.query(text, [1], true)).toEqual([{ tripled: 3 }]);
    // On the connection that prepared it: the pool hands out the connection it got back last.
    await reads.query('DEALLOCATE ALL', []);

    expect(await reads.query(text, [2], true)).toEqual([{ tripled: 6 }]);
    expect(await reads.query(text, [3], true)).toEqual([{ tripled: 9 }]);
    const prepared = await reads.query<{ statement: string }>(PREPARED, []);
    expect(prepared.map((row) => row.statement)).toEqual([text]);
  });

  it('prepare nothing when not asked to (a statement planned for its values)', async () => {
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

  /** Every batch a stream hands over, and whether reading it failed. */
  async function batchesOf(rows: AsyncIterable<{ n: number }[]>) {
    const batches: number[][] = [];
    try {
      for await (const batch of rows) batches.push(batch.map((row) => row.n));
      return { batches, failure: null };
    } catch (error) {
      return { batches, failure: error as Error };
    }
  }

  it('hand the rows of a statement over in batches as they come in, every row once and in order', async () => {
    const reads = new PoolQueries(database.dataSource.manager, target.name === 'postgres');
    const { batches, failure } = await batchesOf(
      reads.stream(
        'SELECT g AS n, repeat($2, 40) AS pad FROM generate_series(1, $1::int) g',
        [20_000, 'x'],
        true,
      ),
    );

    expect(failure).toBeNull();
    expect(batches.flat()).toEqual(Array.from({ length: 20_000 }, (_, i) => i + 1));
    // About 1.2 MB: more than one read of the socket, so more than one batch, on PostgreSQL.
    if (target.name === 'postgres') expect(batches.length).toBeGreaterThan(1);
  });

  it('let a reader stop after the first batch, and the connection serve the next statement', async () => {
    const reads = new PoolQueries(database.dataSource.manager, false);
    for await (const batch of reads.stream<{ n: number }>(
      'SELECT g AS n FROM generate_series(1, 50000) g',
      [],
    )) {
      expect(batch[0]).toEqual({ n: 1 });
      break;
    }

    // PGlite's pool has one connection: this waits for the abandoned statement's end, then runs.
    expect(await reads.query('SELECT 2 AS n', [])).toEqual([{ n: 2 }]);
  });

  it("fail the reading with the statement's error when it fails part way, and serve the next statement", async () => {
    const reads = new PoolQueries(database.dataSource.manager, false);
    const { batches, failure } = await batchesOf(
      reads.stream('SELECT 1 / (20000 - g) AS n FROM generate_series(1, 30000) g', []),
    );

    expect(failure?.message).toMatch(/division by zero/);
    expect(batches.flat().length).toBeLessThan(20_000);
    expect(await reads.query('SELECT 3 AS n', [])).toEqual([{ n: 3 }]);
  });

  it("stream in the manager's transaction as one batch when one holds it", async () => {
    const batches = await database.dataSource.transaction(async (manager) => {
      await manager.query('CREATE TEMPORARY TABLE pool_stream_probe (n int) ON COMMIT DROP');
      await manager.query('INSERT INTO pool_stream_probe VALUES (1), (2)');
      return batchesOf(
        new PoolQueries(manager, true).stream('SELECT n FROM pool_stream_probe ORDER BY n', []),
      );
    });

    expect(batches).toEqual({ batches: [[1, 2]], failure: null });
  });
});
