import {
  type FailingMark,
  failingMark,
  failingMarksSql,
  failingSinceSql,
  type MarkedAttempt,
} from '../../../src/application/webhooks/failing-mark';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';

const KINDS = ['succeeded', 'failed', 'neither'] as const;
const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, second));

/** Every sequence of one to four attempts, each a success, a failure or neither, a second apart. */
function sequences(): MarkedAttempt[][] {
  let found: (typeof KINDS)[number][][] = [[]];
  const all: MarkedAttempt[][] = [];
  for (let length = 1; length <= 4; length++) {
    found = found.flatMap((sequence) => KINDS.map((kind) => [...sequence, kind]));
    for (const sequence of found) {
      all.push(
        sequence.map((kind, i) => ({
          at: at(i),
          succeeded: kind === 'succeeded',
          failed: kind === 'failed',
        })),
      );
    }
  }
  return all;
}

/**
 * src/application/webhooks/failing-mark.ts reads what attempts say about a subscription's failing
 * mark in TypeScript (a window) and in SQL (a batch of outcomes): both readings answer the same
 * sequences of attempts. What the stored mark then becomes is the SQL alone, checked on every case.
 */
describe.each(testDatabases)('the webhook failing mark on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(() => database.close());

  it('what attempts say: the first failure after the last success, in TypeScript and in SQL alike', async () => {
    const cases = sequences();
    const rows = cases.flatMap((attempts, id) => attempts.map((a) => ({ id, ...a })));
    const answers: { subscription_id: number; succeeded: boolean; failing_from: Date | null }[] =
      await database.dataSource.query(
        `WITH a AS (
           SELECT * FROM unnest($1::int[], $2::timestamptz[], $3::boolean[], $4::boolean[])
             AS a(subscription_id, at, succeeded, failed)
         )
         SELECT m.* FROM (${failingMarksSql('a')}) m ORDER BY m.subscription_id`,
        [
          rows.map((r) => r.id),
          rows.map((r) => r.at),
          rows.map((r) => r.succeeded),
          rows.map((r) => r.failed),
        ],
      );
    // Given in reverse: the order they are listed in does not matter, only when each began.
    const expected = cases.map((attempts) => failingMark([...attempts].reverse()));
    expect(expected).toContainEqual({ succeeded: true, failingFrom: at(1) });
    expect(expected).toContainEqual({ succeeded: false, failingFrom: at(0) });
    expect(expected).toContainEqual({ succeeded: true, failingFrom: null });
    expect(
      answers.map((row): FailingMark => ({ succeeded: row.succeeded, failingFrom: row.failing_from })),
    ).toEqual(expected);
  });

  it('what the mark becomes: after a success the first failure since; otherwise the older mark, or the first failure', async () => {
    const older = at(-600);
    const cases: {
      current: Date | null;
      succeeded: boolean;
      failingFrom: Date | null;
      becomes: Date | null;
    }[] = [
      { current: null, succeeded: false, failingFrom: null, becomes: null },
      { current: null, succeeded: false, failingFrom: at(1), becomes: at(1) },
      { current: older, succeeded: false, failingFrom: null, becomes: older },
      { current: older, succeeded: false, failingFrom: at(1), becomes: older },
      { current: null, succeeded: true, failingFrom: null, becomes: null },
      { current: null, succeeded: true, failingFrom: at(1), becomes: at(1) },
      { current: older, succeeded: true, failingFrom: null, becomes: null },
      { current: older, succeeded: true, failingFrom: at(1), becomes: at(1) },
    ];
    const rows: { becomes: Date | null }[] = await database.dataSource.query(
      `SELECT ${failingSinceSql('c.current', 'c.succeeded', 'c.failing_from')} AS becomes
         FROM unnest($1::timestamptz[], $2::boolean[], $3::timestamptz[]) WITH ORDINALITY
           AS c(current, succeeded, failing_from, n)
        ORDER BY c.n`,
      [cases.map((c) => c.current), cases.map((c) => c.succeeded), cases.map((c) => c.failingFrom)],
    );
    expect(rows.map((row) => row.becomes)).toEqual(cases.map((c) => c.becomes));
  });
});
