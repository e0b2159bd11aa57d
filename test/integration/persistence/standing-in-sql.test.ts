import { type Grace, graceOf, NO_GRACE } from '../../../src/domain/grace';
import {
  goodStandingUntil,
  goodStandingUntilSql,
  graceUntil,
  graceUntilSql,
  membershipStatus,
  membershipStatusSql,
  personStanding,
  personStandingSql,
} from '../../../src/domain/standing';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { SystemClock } from '../../../src/infrastructure/system-clock';
import { openTestDatabase, testDatabases } from '../../support/databases';

type Held = { kind: string | null; startDate: string; endDate: string | null };

const held = (startDate: string, endDate: string | null, kind: string | null = null): Held => ({
  kind,
  startDate,
  endDate,
});

const THIRTY = graceOf(30);
// Kinds by folding: 'Straße' is 'STRASSE', 'σίσυφος' is 'ΣΊΣΥΦΟΣ' (final sigma and all).
const BY_KIND = graceOf(10, [
  ['Student', 30],
  ['STRASSE', 5],
  ['ΣΊΣΥΦΟΣ', 3],
  ['honorary', 0],
]);
const GRACES: [string, Grace][] = [
  ['no grace', NO_GRACE],
  ['30 days', THIRTY],
  ['grace by kind', BY_KIND],
];
const KINDS = [null, 'full', 'STUDENT', 'straße', 'σίσυφος', 'Honorary'];

// The boundaries of SPEC §10 for a membership from 2028-01-10 to 29 February 2028 with 30 days'
// grace (until 30 March): its start, its end, the day after, grace_until and the day after; the
// day before its start; and the last days of year 9999, past which no grace runs.
const DAYS = [
  '2028-01-09',
  '2028-01-10',
  '2028-02-28',
  '2028-02-29',
  '2028-03-01',
  '2028-03-02',
  '2028-03-30',
  '2028-03-31',
  '2028-04-01',
  '9999-12-30',
  '9999-12-31',
];
const STARTS = ['2028-01-10', '2028-02-29', '2028-03-01', '2028-03-31', '9999-12-31'];
const PERIODS: Held[] = [];
for (const start of STARTS) {
  PERIODS.push(held(start, null));
  for (const end of DAYS) if (end >= start) PERIODS.push(held(start, end));
}
const MEMBERSHIPS: Held[] = PERIODS.flatMap((p) => KINDS.map((kind) => ({ ...p, kind })));

/** No membership, each alone, and pairs and triples that touch, overlap or leave gaps. */
function holdings(): Held[][] {
  const all: Held[][] = [[], ...PERIODS.map((p, i) => [{ ...p, kind: KINDS[i % KINDS.length] }])];
  for (let i = 0; i < PERIODS.length; i += 2) {
    for (let j = i + 1; j < PERIODS.length; j += 3) {
      all.push([PERIODS[i], { ...PERIODS[j], kind: KINDS[(i + j) % KINDS.length] }]);
      if (j + 5 < PERIODS.length) all.push([PERIODS[i], PERIODS[j], { ...PERIODS[j + 5], kind: 'student' }]);
    }
  }
  return all;
}

describe('membership standing, its rules alone', () => {
  const ending = held('2028-01-10', '2028-02-29');
  const statusOn = (m: Held, grace: Grace) => DAYS.slice(0, 9).map((day) => membershipStatus(m, day, grace));

  it('is pending before the start, current from start to end, in grace until grace_until, then ended', () => {
    expect(graceUntil(ending, THIRTY)).toBe('2028-03-30');
    expect(statusOn(ending, THIRTY)).toEqual([
      'pending',
      'current',
      'current',
      'current',
      'grace',
      'grace',
      'grace',
      'ended',
      'ended',
    ]);
  });

  it('without grace, ends the day after its end date, and has no grace_until', () => {
    expect(graceUntil(ending, NO_GRACE)).toBeNull();
    expect(statusOn(ending, NO_GRACE).slice(3, 5)).toEqual(['current', 'ended']);
  });

  it('takes the grace of its kind, compared by case folding, else GRACE_DAYS', () => {
    expect(graceUntil(held('2028-01-10', '2028-02-29', 'STUDENT'), BY_KIND)).toBe('2028-03-30');
    expect(graceUntil(held('2028-01-10', '2028-02-29', 'straße'), BY_KIND)).toBe('2028-03-05');
    expect(graceUntil(held('2028-01-10', '2028-02-29', 'σίσυφος'), BY_KIND)).toBe('2028-03-03');
    expect(graceUntil(held('2028-01-10', '2028-02-29', 'Honorary'), BY_KIND)).toBeNull();
    expect(graceUntil(held('2028-01-10', '2028-02-29', 'full'), BY_KIND)).toBe('2028-03-10');
    expect(graceUntil(held('2028-01-10', '2028-02-29'), BY_KIND)).toBe('2028-03-10');
  });

  it('never runs a grace past 9999-12-31 (none left for a membership ending then), and gives an open end none', () => {
    expect(graceUntil(held('2028-01-10', '9999-12-30'), THIRTY)).toBe('9999-12-31');
    expect(graceUntil(held('2028-01-10', '9999-12-31'), THIRTY)).toBeNull();
    expect(graceUntil(held('2028-01-10', null), THIRTY)).toBeNull();
    expect(membershipStatus(held('2028-01-10', null), '9999-12-31', THIRTY)).toBe('current');
  });

  it('gives a person the best status of their memberships, lapsed when none is good, none without one', () => {
    const today = '2028-03-01';
    expect(personStanding([], today, THIRTY)).toBe('none');
    expect(personStanding([ending, held('2028-03-01', null)], today, THIRTY)).toBe('current');
    expect(personStanding([ending, held('2028-04-01', null)], today, THIRTY)).toBe('grace');
    expect(personStanding([ending, held('2028-04-01', null)], today, NO_GRACE)).toBe('pending');
    expect(personStanding([ending], today, NO_GRACE)).toBe('lapsed');
  });

  it('chains touching and overlapping periods, grace included, to the first day none covers', () => {
    const today = '2028-02-10';
    const renewed = [ending, held('2028-03-01', '2028-06-30')];
    expect(goodStandingUntil(renewed, today, NO_GRACE)).toBe('2028-06-30');
    const gap = [ending, held('2028-03-02', '2028-06-30')];
    expect(goodStandingUntil(gap, today, NO_GRACE)).toBe('2028-02-29');
    // Thirty days' grace bridges the gap, and the renewal's own grace ends the chain.
    expect(goodStandingUntil(gap, today, THIRTY)).toBe('2028-07-30');
    expect(goodStandingUntil([ending, held('2028-02-01', null)], today, NO_GRACE)).toBeNull();
    expect(goodStandingUntil([ending], '2028-03-15', THIRTY)).toBe('2028-03-30');
    expect(goodStandingUntil([ending], '2028-03-15', NO_GRACE)).toBeNull();
    expect(goodStandingUntil([held('2028-03-01', '2028-06-30')], today, NO_GRACE)).toBeNull();
  });
});

/**
 * The rules of src/domain/standing.ts in TypeScript and in SQL, on the same cases: the answers
 * must agree, on every boundary SPEC §10 names.
 */
describe.each(testDatabases)('membership standing in TypeScript and in SQL on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(() => database.close());

  describe.each(GRACES)('with %s', (_name, grace) => {
    it('status and grace_until of every membership on every day', async () => {
      const rows: { status: string; grace_until: string | null }[] = await database.dataSource.query(
        `SELECT ${membershipStatusSql('m', 'd.day', grace)} AS status, (${graceUntilSql('m', grace)})::text AS grace_until
           FROM unnest($1::text[], $2::date[], $3::date[]) WITH ORDINALITY AS m(kind, start_date, end_date, n)
           CROSS JOIN unnest($4::date[]) WITH ORDINALITY AS d(day, k)
          ORDER BY m.n, d.k`,
        [
          MEMBERSHIPS.map((m) => m.kind),
          MEMBERSHIPS.map((m) => m.startDate),
          MEMBERSHIPS.map((m) => m.endDate),
          DAYS,
        ],
      );
      const expected = MEMBERSHIPS.flatMap((m) =>
        DAYS.map((day) => ({ status: membershipStatus(m, day, grace), grace_until: graceUntil(m, grace) })),
      );
      expect(new Set(expected.map((e) => e.status)).size).toBe(grace === NO_GRACE ? 3 : 4);
      expect(rows).toEqual(expected);
    });

    it("a person's standing and good_standing_until, for every holding on every day", async () => {
      const people = holdings();
      const rows = people.flatMap((ms, person) => ms.map((m) => ({ person, ...m })));
      const answers: { standing: string; until: string | null }[] = await database.dataSource.query(
        `WITH memberships (person_id, kind, start_date, end_date) AS (
             SELECT * FROM unnest($1::int[], $2::text[], $3::date[], $4::date[])
           )
           SELECT ${personStandingSql('p', 'd.day', grace)} AS standing,
                  (${goodStandingUntilSql('p', 'd.day', grace)})::text AS until
             FROM generate_series(0, $5::int) AS p(id)
             CROSS JOIN unnest($6::date[]) WITH ORDINALITY AS d(day, k)
            ORDER BY p.id, d.k`,
        [
          rows.map((r) => r.person),
          rows.map((r) => r.kind),
          rows.map((r) => r.startDate),
          rows.map((r) => r.endDate),
          people.length - 1,
          DAYS,
        ],
      );
      const expected = people.flatMap((ms) =>
        DAYS.map((day) => ({
          standing: personStanding(ms, day, grace),
          until: goodStandingUntil(ms, day, grace),
        })),
      );
      const standings = new Set(expected.map((e) => e.standing));
      expect(standings).toEqual(
        new Set(['none', 'current', 'pending', 'lapsed', ...(grace === NO_GRACE ? [] : ['grace'])]),
      );
      expect(expected.some((e) => e.until !== null)).toBe(true);
      expect(answers).toEqual(expected);
    });
  });

  it('turns at midnight in DIRECTORY_TIMEZONE: a second before, the day before; at midnight, the new day', async () => {
    const clock = new SystemClock('Pacific/Auckland');
    // 29 February 2028 begins in Auckland at 11:00 UTC on the 28th (UTC+13 in summer).
    const before = clock.dateOf(new Date('2028-02-28T10:59:59Z'));
    const after = clock.dateOf(new Date('2028-02-28T11:00:00Z'));
    expect([before, after]).toEqual(['2028-02-28', '2028-02-29']);
    const cases = [held('2028-02-29', '2028-03-31'), held('2028-01-10', '2028-02-28')];
    const expected = cases.map((m) => [before, after].map((day) => membershipStatus(m, day, THIRTY)));
    expect(expected).toEqual([
      ['pending', 'current'],
      ['current', 'grace'],
    ]);
    const rows: { status: string }[] = await database.dataSource.query(
      `SELECT ${membershipStatusSql('m', 'd.day', THIRTY)} AS status
         FROM unnest($1::text[], $2::date[], $3::date[]) WITH ORDINALITY AS m(kind, start_date, end_date, n)
         CROSS JOIN unnest($4::date[]) WITH ORDINALITY AS d(day, k)
        ORDER BY m.n, d.k`,
      [cases.map((m) => m.kind), cases.map((m) => m.startDate), cases.map((m) => m.endDate), [before, after]],
    );
    expect(rows.map((r) => r.status)).toEqual(expected.flat());
  });
});
