import { NO_GRACE } from '../../../src/domain/grace';
import type { RenderedChange } from '../../../src/application/ports/change-feed';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { SqlChangeFeed } from '../../../src/infrastructure/persistence/sql-change-feed';
import { openTestDatabase, testDatabases } from '../../support/databases';

const TODAY = '2026-11-27';

async function record(database: Database, count: number): Promise<void> {
  await database.dataSource.query(
    `INSERT INTO changes (seq, type, person_id)
     SELECT nextval('changes_seq'), 'person.created', n FROM generate_series(1, $1) n`,
    [count],
  );
}

/**
 * A page of the feed read in parts (as on PGlite, so that another key's lookup waits behind a part
 * rather than a page): the same changes as one statement reads, and, when a prune overtakes the
 * page between two parts, a page cut short there, never one that skips the pruned changes.
 */
describe.each(testDatabases)('a feed page read in parts on $name', (target) => {
  let database: Database;
  beforeEach(async () => {
    database = await openTestDatabase(target);
  });
  afterEach(async () => {
    await database?.close();
  });

  const readAll = async (changes: AsyncIterable<RenderedChange[]>) => {
    const seqs: number[] = [];
    for await (const batch of changes) seqs.push(...batch.map((change) => change.seq));
    return seqs;
  };

  it('reads the same changes as one statement, for every limit around the part size', async () => {
    await record(database, 7);
    const whole = new SqlChangeFeed(database.dataSource.manager);
    const inParts = new SqlChangeFeed(database.dataSource.manager, { pagePart: () => 3 });
    for (const [after, limit] of [
      [0, 1],
      [0, 3],
      [0, 4],
      [0, 6],
      [0, 7],
      [0, 100],
      [2, 5],
      [5, 10],
    ]) {
      const expected = await readAll((await whole.renderedPage(after, limit, TODAY, NO_GRACE)).changes);
      const page = await inParts.renderedPage(after, limit, TODAY, NO_GRACE);
      expect(await readAll(page.changes)).toEqual(expected);
      expect(page.cutShort?.() ?? false).toBe(false);
    }
  });

  it('asks the part size before each part: a page goes on in smaller parts once others are about', async () => {
    await record(database, 9);
    const sizes = [4, 2, 2, 2];
    const asked: number[] = [];
    const feed = new SqlChangeFeed(database.dataSource.manager, {
      pagePart: () => {
        const size = sizes[Math.min(asked.length, sizes.length - 1)];
        asked.push(size);
        return size;
      },
    });
    const page = await feed.renderedPage(0, 9, TODAY, NO_GRACE);
    const parts: number[][] = [];
    for await (const batch of page.changes) parts.push(batch.map((change) => change.seq));
    expect(parts).toEqual([[1, 2, 3, 4], [5, 6], [7, 8], [9]]);
  });

  it('ends the page where a prune overtook it, and says it was cut short', async () => {
    await record(database, 7);
    const feed = new SqlChangeFeed(database.dataSource.manager, { pagePart: () => 3 });
    const page = await feed.renderedPage(0, 7, TODAY, NO_GRACE);
    const iterator = page.changes[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    const firstSeqs = (first.value as RenderedChange[]).map((change) => change.seq);
    expect(firstSeqs).toHaveLength(3);
    // Everything recorded so far goes before the next part is read.
    await feed.prune(new Date(Date.now() + 60_000));
    const rest: number[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      rest.push(...next.value.map((change) => change.seq));
    expect(rest).toEqual([]);
    expect(page.cutShort?.()).toBe(true);
  });
});
