import {
  currentDayAfterSql,
  currentMembershipSql,
  endingBeforeCandidatesSql,
  endingBeforeSql,
  isCurrent,
  isCurrentDayAfter,
  isEndingBefore,
  isNearItsEnd,
  lastsUntil,
  lastsUntilSql,
  nearItsEndSql,
} from '../../../src/domain/membership';
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

/**
 * Each membership rule of src/domain/membership.ts is spelled in TypeScript and in SQL: here both
 * spellings answer the same cases, every pair of a period and a day, and the answers must agree.
 */
describe.each(testDatabases)('the membership rules in TypeScript and in SQL on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(() => database.close());

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
    const rows: { person: number; today: string; date: string; answer: boolean; from_candidates: boolean }[] =
      await database.dataSource.query(
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
