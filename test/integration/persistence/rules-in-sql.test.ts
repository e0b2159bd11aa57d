import {
  type FailingMark,
  failingMark,
  failingMarksSql,
  failingSinceSql,
  type MarkedAttempt,
} from '../../../src/application/webhooks/failing-mark';
import { type Contact, compareContacts, contactOrderSql } from '../../../src/domain/contact';
import {
  currentDayAfterSql,
  currentMembershipSql,
  endingBeforeCandidatesSql,
  endingBeforeSql,
  hasEnded,
  hasEndedSql,
  hasStarted,
  hasStartedSql,
  isCurrent,
  isCurrentDayAfter,
  isEndingBefore,
  isNearItsEnd,
  lastsUntil,
  lastsUntilSql,
  nearItsEndSql,
} from '../../../src/domain/membership';
import { isVisible, ROLES, type Role, visiblePersonSql } from '../../../src/domain/person';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';

type Period = { startDate: string; endDate: string | null };

// Dates around the edges that matter: a month's end, a leap day, the last day PostgreSQL and the
// domain's dates share (the day after 9999-12-31 is year 10000, which only the database can write).
const DAYS = [
  '2028-02-27',
  '2028-02-28',
  '2028-02-29',
  '2028-03-01',
  '2028-03-02',
  '9999-12-30',
  '9999-12-31',
];
const PERIODS: Period[] = [];
for (const startDate of DAYS) {
  PERIODS.push({ startDate, endDate: null });
  for (const endDate of DAYS) if (endDate >= startDate) PERIODS.push({ startDate, endDate });
}

// Webhook attempts: a success, a failure (countsAsFailure) or neither.
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
 * Rules spelled in TypeScript and in SQL, side by side in their module (memberships and people in
 * src/domain, the webhook failing mark in src/application/webhooks/failing-mark.ts): here both
 * spellings answer the same cases, and the answers must agree.
 */
describe.each(testDatabases)('rules in TypeScript and in SQL on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(() => database.close());

  describe('memberships', () => {
    /** The fragment's answer for every period and day, evaluated by the database in one statement. */
    async function sqlAnswers(fragment: (m: string, day: string) => string): Promise<boolean[]> {
      const rows: { answer: boolean }[] = await database.dataSource.query(
        `SELECT (${fragment('m', 'd.day')}) AS answer
           FROM unnest($1::date[], $2::date[]) WITH ORDINALITY AS m(start_date, end_date, n)
           CROSS JOIN unnest($3::date[]) WITH ORDINALITY AS d(day, k)
          ORDER BY m.n, d.k`,
        [PERIODS.map((p) => p.startDate), PERIODS.map((p) => p.endDate), DAYS],
      );
      return rows.map((row) => row.answer);
    }

    const tsAnswers = (rule: (m: Period, day: string) => boolean) =>
      PERIODS.flatMap((p) => DAYS.map((day) => rule(p, day)));

    it('current: both ends inclusive, an empty end open-ended', async () => {
      const expected = tsAnswers(isCurrent);
      expect(expected).toContain(true);
      expect(expected).toContain(false);
      expect(await sqlAnswers(currentMembershipSql)).toEqual(expected);
    });

    it('lasting until a day: open-ended, or ending that day or later', async () => {
      const expected = tsAnswers(lastsUntil);
      expect(expected).toContain(true);
      expect(expected).toContain(false);
      expect(await sqlAnswers(lastsUntilSql)).toEqual(expected);
    });

    it('started by a day: its first day that day or earlier', async () => {
      const expected = tsAnswers(hasStarted);
      expect(expected).toContain(true);
      expect(expected).toContain(false);
      expect(await sqlAnswers(hasStartedSql)).toEqual(expected);
    });

    it('ended before a day: its last day before it, never when open-ended', async () => {
      const expected = tsAnswers(hasEnded);
      expect(expected).toContain(true);
      expect(expected).toContain(false);
      expect(await sqlAnswers(hasEndedSql)).toEqual(expected);
    });

    it('current on the day after a date, across month ends, a leap day and the last day of year 9999', async () => {
      const expected = tsAnswers(isCurrentDayAfter);
      expect(expected).toContain(true);
      expect(expected).toContain(false);
      expect(await sqlAnswers(currentDayAfterSql)).toEqual(expected);
    });

    it.each([0, 1, 2, 30])(
      'near its end, %i days ahead: current, its end date at most that many days away',
      async (days) => {
        const expected = tsAnswers((p, day) => isNearItsEnd(p, day, days));
        expect(expected).toContain(true);
        expect(await sqlAnswers((m, day) => nearItsEndSql(m, day, String(days)))).toEqual(expected);
      },
    );

    it('ending before a date: for people holding one or two of the periods, on every pair of today and date', async () => {
      const holdings: Period[][] = [[], ...PERIODS.map((p) => [p])];
      for (let i = 0; i < PERIODS.length; i += 3) {
        for (let j = i + 1; j < PERIODS.length; j += 4) holdings.push([PERIODS[i], PERIODS[j]]);
      }
      const people = holdings.flatMap((periods, person) => periods.map((p) => ({ person, ...p })));
      const rows: {
        person: number;
        today: string;
        date: string;
        answer: boolean;
        from_candidates: boolean;
      }[] = await database.dataSource.query(
        `WITH memberships (person_id, start_date, end_date) AS (
             SELECT * FROM unnest($1::int[], $2::date[], $3::date[])
           )
           SELECT p.id AS person, t.day::text AS today, d.day::text AS date,
                  (${endingBeforeSql('p', 't.day', 'd.day')}) AS answer,
                  -- As the filter asks it for a date not before today: the candidates first.
                  (${endingBeforeCandidatesSql('p', 't.day', 'd.day')} AND ${endingBeforeSql('p', 't.day', 'd.day')})
                    AS from_candidates
             FROM generate_series(0, $4::int) AS p(id)
             CROSS JOIN unnest($5::date[]) AS t(day)
             CROSS JOIN unnest($5::date[]) AS d(day)
            ORDER BY 1, 2, 3`,
        [
          people.map((m) => m.person),
          people.map((m) => m.startDate),
          people.map((m) => m.endDate),
          holdings.length - 1,
          DAYS,
        ],
      );
      const expected = rows.map((row) => isEndingBefore(holdings[row.person], row.today, row.date));
      expect(expected).toContain(true);
      expect(expected).toContain(false);
      expect(rows.map((row) => row.answer)).toEqual(expected);
      const ahead = rows.filter((row) => row.date >= row.today);
      expect(ahead.map((row) => row.from_candidates)).toEqual(ahead.map((row) => row.answer));
    });
  });

  describe('people and contacts', () => {
    it('visible: neither an admin nor erased, for every role, erased or not', async () => {
      const cases: { role: Role; erased: boolean }[] = ROLES.flatMap((role) =>
        [false, true].map((erased) => ({ role, erased })),
      );
      const rows: { visible: boolean }[] = await database.dataSource.query(
        `SELECT (${visiblePersonSql('p')}) AS visible
           FROM unnest($1::text[], $2::timestamptz[]) WITH ORDINALITY AS p(role, erased_at, n)
          ORDER BY p.n`,
        [cases.map((c) => c.role), cases.map((c) => (c.erased ? new Date() : null))],
      );
      const expected = cases.map((c) => isVisible(c));
      expect(expected).toContain(true);
      expect(expected).toContain(false);
      expect(rows.map((row) => row.visible)).toEqual(expected);
    });

    it('contacts in order: by kind (email, phone, address), then id, whatever order they were written in', async () => {
      const contacts: Pick<Contact, 'id' | 'kind'>[] = [
        { id: 7, kind: 'address' },
        { id: 3, kind: 'phone' },
        { id: 9, kind: 'email' },
        { id: 1, kind: 'address' },
        { id: 12, kind: 'phone' },
        { id: 2, kind: 'email' },
        { id: 5, kind: 'phone' },
      ];
      const rows: { id: number }[] = await database.dataSource.query(
        `SELECT c.id FROM unnest($1::int[], $2::text[]) AS c(id, kind) ORDER BY ${contactOrderSql('c')}`,
        [contacts.map((c) => c.id), contacts.map((c) => c.kind)],
      );
      const expected = [...contacts].sort(compareContacts).map((c) => c.id);
      expect(expected).toEqual([2, 9, 3, 5, 12, 1, 7]);
      expect(rows.map((row) => row.id)).toEqual(expected);
    });
  });

  describe('the webhook failing mark', () => {
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
});
