import request from 'supertest';
import { AnnounceMembershipTransitions } from '../../../src/application/changes/announce-membership-transitions';
import type { Database } from '../../../src/infrastructure/persistence/database';
import {
  CLAIM_DUE_SQL,
  SqlMembershipCalendar,
} from '../../../src/infrastructure/persistence/sql-membership-calendar';
import { SystemClock } from '../../../src/infrastructure/system-clock';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { openTestDatabase, testDatabases } from '../../support/databases';

/** The directory's real clock in its time zone, stopped at a moment the test moves. */
class StoppedClock extends SystemClock {
  constructor(
    timeZone: string,
    private moment: Date,
  ) {
    super(timeZone);
  }

  override now(): Date {
    return new Date(this.moment);
  }

  set(iso: string): void {
    this.moment = new Date(iso);
  }
}

/**
 * Dates are years ahead of the real one, since the database stamps when memberships are written
 * with its own clock: a membership written today and starting in 2040 starts by the calendar.
 */
describe.each(testDatabases)('membership.started and membership.ended on $name', (target) => {
  let t: TestApp;
  let reader: string;
  // Kiritimati is UTC+14: at 2040-03-01T11:00Z its date is already 2040-03-02.
  const clock = new StoppedClock('Pacific/Kiritimati', new Date('2040-03-01T09:00:00Z'));

  beforeAll(async () => {
    t = await createTestApp(target, {
      env: { DIRECTORY_TIMEZONE: 'Pacific/Kiritimati' },
      overrides: { clock },
    });
    reader = await t.tokenWith(['read']);
  });
  afterAll(() => t.close());

  const cursorNow = async () =>
    (await request(t.app).get('/people?limit=1').set('Authorization', `Bearer ${reader}`)).headers[
      'changes-cursor'
    ];
  /** Every change after the cursor, page by page. */
  async function changesAfter(cursor: string) {
    const changes: { type: string; person_id: number; by: number | null; person: unknown }[] = [];
    for (let after = cursor; ; ) {
      const res = await request(t.app)
        .get(`/changes?after=${after}&limit=1000`)
        .set('Authorization', `Bearer ${reader}`);
      expect(res.status).toBe(200);
      changes.push(...res.body.changes);
      if (!res.body.has_more) return changes;
      after = res.body.cursor;
    }
  }
  const runCalendar = () => t.container.get(AnnounceMembershipTransitions).execute();
  const member = (startDate: string, endDate: string | null) =>
    newPerson({ memberships: [{ club: uniqueName('Club'), kind: null, startDate, endDate }] });

  it("tells a start when the directory's date reaches it, once, with the person as now", async () => {
    clock.set('2040-03-01T09:00:00Z'); // 2040-03-01 23:00 in Kiritimati
    const [id] = await t.addPeople([member('2040-03-02', null)]);
    const start = await cursorNow();

    await runCalendar();
    expect(await changesAfter(start)).toEqual([]);

    clock.set('2040-03-01T11:00:00Z'); // 2040-03-02 01:00 in Kiritimati, still 1 March in UTC
    await runCalendar();
    await runCalendar();
    const changes = await changesAfter(start);
    expect(changes).toEqual([
      expect.objectContaining({ type: 'membership.started', person_id: id, fields: null, by: null }),
    ]);
    expect(changes[0].person).toMatchObject({
      id,
      memberships: [expect.objectContaining({ current: true })],
    });
  });

  it('tells an end the day after its last day', async () => {
    clock.set('2040-04-10T00:00:00Z'); // 2040-04-10 14:00 there
    const [id] = await t.addPeople([member('2040-04-01', '2040-04-10')]);
    await runCalendar();
    const start = await cursorNow();

    await runCalendar();
    expect(await changesAfter(start)).toEqual([]);
    clock.set('2040-04-10T10:00:00Z'); // 2040-04-11 there
    await runCalendar();
    await runCalendar();
    expect(await changesAfter(start)).toEqual([
      expect.objectContaining({ type: 'membership.ended', person_id: id }),
    ]);
  });

  it('catches up after downtime: a start and an end both passed, told in that order', async () => {
    clock.set('2040-05-01T00:00:00Z');
    const [id] = await t.addPeople([member('2040-05-03', '2040-05-05')]);
    await runCalendar();
    const start = await cursorNow();

    clock.set('2040-05-20T00:00:00Z');
    expect(await runCalendar()).toMatchObject({ started: 1, ended: 1 });
    expect((await changesAfter(start)).map((c) => [c.type, c.person_id])).toEqual([
      ['membership.started', id],
      ['membership.ended', id],
    ]);
  });

  it('tells nothing for a membership written already current or already ended', async () => {
    clock.set('2040-06-01T00:00:00Z');
    const start = await cursorNow();
    // Written (by the database's clock) before these dates came: those turned by the calendar.
    const turned = await t.addPeople([member('2040-05-31', null)]);
    // Dates before the day it is written: the writer's own change says so, not the calendar.
    await t.addPeople([member('2020-01-01', null), member('2019-01-01', '2020-12-31')]);

    await runCalendar();
    expect((await changesAfter(start)).map((c) => [c.type, c.person_id])).toEqual([
      ['membership.started', turned[0]],
    ]);
    const [{ n }] = await t.database.dataSource.query(
      'SELECT count(*)::int AS n FROM memberships WHERE NOT start_announced OR (end_date IS NOT NULL AND NOT end_announced AND end_date < $1)',
      ['2040-06-01'],
    );
    expect(n).toBe(0);
  });

  it('leaves the calendar nothing to do for transitions long past when written, and what is to come to it', async () => {
    const [past, ended, coming] = await t.addPeople([
      member('2020-01-01', null),
      member('2019-01-01', '2020-12-31'),
      member('2040-09-01', '2040-09-30'),
    ]);

    // Before any run of the job: an import of a society's history leaves it nothing to rewrite.
    const rows: { person_id: number; start_announced: boolean; end_announced: boolean }[] =
      await t.database.dataSource.query(
        'SELECT person_id, start_announced, end_announced FROM memberships WHERE person_id = ANY($1::int[]) ORDER BY person_id',
        [[past, ended, coming]],
      );
    expect(rows).toEqual([
      { person_id: past, start_announced: true, end_announced: false },
      { person_id: ended, start_announced: true, end_announced: true },
      { person_id: coming, start_announced: false, end_announced: false },
    ]);
  });

  it("never shows an admin's membership turning", async () => {
    clock.set('2040-07-01T00:00:00Z');
    await t.addPeople([
      newPerson({
        role: 'admin',
        memberships: [{ club: 'Staff', kind: null, startDate: '2040-07-02', endDate: null }],
      }),
    ]);
    const start = await cursorNow();
    clock.set('2040-07-03T00:00:00Z');
    await runCalendar();
    expect(await changesAfter(start)).toEqual([]);
  });

  it('deals with more due memberships than one batch, each once', async () => {
    clock.set('2040-08-01T00:00:00Z');
    await runCalendar();
    const ids = await t.addPeople(Array.from({ length: 1200 }, () => member('2040-08-05', null)));
    const start = await cursorNow();
    clock.set('2040-08-06T00:00:00Z');
    expect(await runCalendar()).toEqual({ started: 1200, ended: 0 });
    expect((await changesAfter(start)).map((c) => c.person_id).sort((a, b) => a - b)).toEqual(ids);
    expect(await runCalendar()).toEqual({ started: 0, ended: 0 });
  });
});

/**
 * The calendar runs every minute on every instance, and on PGlite a query holds up every request
 * until it is done: with nothing due, it must read next to nothing, however many memberships
 * are still to come or long dealt with.
 */
describe.each(testDatabases)("the calendar's claim on $name", (target) => {
  let database: Database;
  const today = '2040-03-01';

  beforeAll(async () => {
    database = await openTestDatabase(target);
    const { dataSource } = database;
    await dataSource.query(`INSERT INTO clubs (name) VALUES ('Solar Section')`);
    await dataSource.query(
      `INSERT INTO people (first_name, last_name, first_name_folded, last_name_folded)
       SELECT 'Ann', 'Lee ' || g, 'ann', 'lee ' || g FROM generate_series(1, 4000) g`,
    );
    // Each person: a membership long over, one current, and next year's, not started yet.
    await dataSource.query(
      `INSERT INTO memberships (person_id, club_id, start_date, end_date, start_announced, end_announced)
       SELECT p.id, c.id, v.start_date::date, v.end_date::date, v.started, v.ended
         FROM people p, clubs c,
              (VALUES ('2038-01-01', '2038-12-31', true, true),
                      ('2040-01-01', '2040-12-31', true, false),
                      ('2041-01-01', '2041-12-31', false, false)) AS v (start_date, end_date, started, ended)`,
    );
    await dataSource.query('ANALYZE memberships');
  });
  afterAll(() => database.close());

  /** The claim's plan as it ran: how many rows its scans read and threw away, and its lines. */
  async function claimPlan() {
    const plan: { 'QUERY PLAN': string }[] = await database.dataSource.transaction((manager) =>
      manager.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${CLAIM_DUE_SQL}`, [today, 500]),
    );
    const lines = plan.map((row) => row['QUERY PLAN']);
    const removed = lines
      .map((line) => Number(/Rows Removed by Filter: (\d+)/.exec(line)?.[1] ?? 0))
      .reduce((sum, n) => sum + n, 0);
    return { lines, removed };
  }

  it('reads no membership that is not due when none is', async () => {
    const { lines, removed } = await claimPlan();
    expect(removed).toBe(0);
    expect(lines.some((line) => /Seq Scan on memberships/.test(line))).toBe(false);
  });

  it('claims what has come due, by id, and reads nothing else', async () => {
    const { dataSource } = database;
    // One start come, one end passed, and one membership whose start and end have both passed.
    const [{ id: starting }] = await dataSource.query(
      `WITH u AS (UPDATE memberships SET start_date = '2040-02-01' WHERE id = (SELECT min(id) FROM memberships
        WHERE start_date = '2041-01-01') RETURNING id) SELECT id FROM u`,
    );
    const [{ id: ended }] = await dataSource.query(
      `WITH u AS (UPDATE memberships SET end_date = '2040-02-01' WHERE id = (SELECT max(id) FROM memberships
        WHERE start_date = '2040-01-01') RETURNING id) SELECT id FROM u`,
    );
    const [{ id: both }] = await dataSource.query(
      `WITH u AS (UPDATE memberships SET start_date = '2040-01-10', end_date = '2040-02-10' WHERE id = (SELECT max(id)
        FROM memberships WHERE start_date = '2041-01-01') RETURNING id) SELECT id FROM u`,
    );

    const claimed = await dataSource.transaction((manager) =>
      new SqlMembershipCalendar(manager).claimDue(today, 500),
    );
    expect(claimed.map((m) => [m.id, m.startDue, m.endDue])).toEqual(
      [
        [starting, true, false],
        [ended, false, true],
        [both, true, true],
      ].sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    expect((await claimPlan()).removed).toBe(0);
  });
});
