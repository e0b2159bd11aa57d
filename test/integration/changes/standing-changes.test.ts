import request from 'supertest';
import { AnnounceStanding } from '../../../src/application/changes/announce-standing';
import type { NewMembership } from '../../../src/application/ports/person-repository';
import { addDays } from '../../../src/domain/calendar-date';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { StoppedClock } from '../../support/stopped-clock';
import { cli } from '../cli/cli-harness';
import { tempFile } from '../cli/import-files';

const period = (startDate: string, endDate: string | null, kind = 'full'): NewMembership => ({
  club: 'Astronomy',
  kind,
  startDate,
  endDate,
});

/**
 * membership.lapsed and person.standing_changed (SPEC §10), told by the calendar job under
 * GRACE_DAYS=10 (30 for students). The clock is stopped (UTC) and moved by each test; each test's
 * dates and people are its own, and it reads the changes about its people only.
 */
describe.each(testDatabases)('standing in the change feed on $name', (target) => {
  let t: TestApp;
  let reader: string;
  const clock = new StoppedClock('UTC', '2050-01-01T12:00:00Z');

  beforeAll(async () => {
    t = await createTestApp(target, {
      env: { GRACE_DAYS: '10', GRACE_DAYS_BY_KIND: 'student=30' },
      overrides: { clock },
    });
    reader = await t.tokenWith(['read']);
  });
  afterAll(() => t.close());

  const on = (day: string) => clock.set(`${day}T12:00:00Z`);
  const run = (app = t) => app.container.get(AnnounceStanding).execute();
  const cursorNow = async () =>
    (await request(t.app).get('/people?limit=1').set('Authorization', `Bearer ${reader}`)).headers[
      'changes-cursor'
    ];
  async function changesAfter(cursor: string, people: number[], app = t) {
    const changes: { type: string; person_id: number; fields: unknown; by: unknown; person: any }[] = [];
    for (let after = cursor; ; ) {
      const res = await request(app.app)
        .get(`/changes?after=${after}&limit=1000`)
        .set('Authorization', `Bearer ${reader}`);
      expect(res.status).toBe(200);
      changes.push(...res.body.changes);
      if (!res.body.has_more) return changes.filter((c) => people.includes(c.person_id));
      after = res.body.cursor;
    }
  }
  /** Each change's type, person and standing now, as `app` (and its GRACE_DAYS) shows them. */
  const told = async (cursor: string, people: number[], app = t) =>
    (await changesAfter(cursor, people, app)).map((c) => [c.type, c.person_id, c.person?.standing ?? null]);

  it('tells each transition once, and membership.lapsed the day after grace_until', async () => {
    on('2050-01-01');
    const [id] = await t.addPeople([newPerson({ memberships: [period('2050-01-05', '2050-06-30')] })]);
    await run(); // first seen: remembered, not told (its creation tells it)
    const start = await cursorNow();
    for (const day of ['2050-01-04', '2050-01-05', '2050-06-30', '2050-07-01', '2050-07-10', '2050-07-11']) {
      on(day);
      await run();
      await run();
    }
    const changes = await changesAfter(start, [id]);
    expect(changes.map((c) => [c.type, c.fields, c.by])).toEqual([
      ['person.standing_changed', ['standing'], null],
      ['person.standing_changed', ['standing'], null],
      ['membership.lapsed', null, null],
      ['person.standing_changed', ['standing'], null],
    ]);
    // The person as now: each read after the last day.
    expect(changes.map((c) => c.person.standing)).toEqual(['lapsed', 'lapsed', 'lapsed', 'lapsed']);
  });

  it("follows the kind's grace, and tells a lapse caught up after downtime once", async () => {
    on('2051-01-01');
    const [student, full] = await t.addPeople([
      newPerson({ memberships: [period('2050-04-01', '2051-03-31', 'Student')] }),
      newPerson({ memberships: [period('2050-04-01', '2051-03-31')] }),
    ]);
    await run();
    const start = await cursorNow();
    on('2051-04-11'); // down since New Year: full lapsed today, the student is in grace
    await run();
    expect(await told(start, [student, full])).toEqual([
      ['membership.lapsed', full, 'lapsed'],
      ['person.standing_changed', student, 'grace'],
      ['person.standing_changed', full, 'lapsed'],
    ]);
    on('2051-05-01');
    await run();
    on('2051-05-02');
    await run();
    expect((await told(start, [student])).slice(1)).toEqual([
      ['membership.lapsed', student, 'lapsed'],
      ['person.standing_changed', student, 'lapsed'],
    ]);
  });

  it('does not tell a membership written with its lapse day past; tells within a run one whose lapse day is today', async () => {
    clock.set(new Date().toISOString()); // written_at is the database's time: the clock must be today too
    const today = clock.today();
    const start = await cursorNow();
    const [lapsingToday, longGone] = await t.addPeople([
      newPerson({ memberships: [period('2020-01-01', addDays(today, -11))] }),
      newPerson({ memberships: [period('2020-01-01', '2020-12-31')] }),
    ]);
    await run();
    expect(await told(start, [lapsingToday, longGone])).toEqual([
      ['membership.lapsed', lapsingToday, 'lapsed'],
    ]);
  });

  it('tells creating and erasing as person.created and person.erased, and a write that changes standing', async () => {
    clock.set(new Date().toISOString()); // written_at is the database's time: the clock must be today too
    const today = clock.today();
    const memberNumber = uniqueName('NA');
    const record = (endDate: string) => ({
      member_number: memberNumber,
      first_name: 'Cecilia',
      last_name: memberNumber,
      memberships: [{ club: 'Astronomy', kind: 'full', start_date: '2020-01-01', end_date: endDate }],
    });
    const start = await cursorNow();
    const importing = async (endDate: string) =>
      (await cli(t.database, ['import', tempFile([record(endDate)])], { container: t.container })).code;
    expect(await importing(addDays(today, 100))).toBe(0);
    await run();
    const [{ id }] = await t.database.dataSource.query('SELECT id FROM people WHERE member_number = $1', [
      memberNumber,
    ]);
    // The secretary corrects the end date into the past, beyond the grace: lapsed at once, by a
    // write, and that membership's lapse day was past when it was written.
    expect(await importing(addDays(today, -20))).toBe(0);
    await run();
    expect(
      (await cli(t.database, ['people', 'erase', String(id), '--yes'], { container: t.container })).code,
    ).toBe(0);
    await run();
    // Nothing more will be told of them: their memberships leave the calendar's lapses to deal with.
    const [{ pending }] = await t.database.dataSource.query(
      'SELECT count(*)::int AS pending FROM memberships WHERE person_id = $1 AND end_date IS NOT NULL AND lapse_announced IS NULL',
      [id],
    );
    expect(pending).toBe(0);
    expect(await told(start, [id])).toEqual([
      ['person.created', id, null],
      ['person.updated', id, null],
      ['person.standing_changed', id, null],
      ['person.erased', id, null],
    ]);
  });

  it('tells, at start, the transitions a changed GRACE_DAYS causes, and only those', async () => {
    on('2053-06-01');
    const [inGrace, longLapsed] = await t.addPeople([
      newPerson({ memberships: [period('2052-06-01', '2053-05-25')] }),
      newPerson({ memberships: [period('2052-01-01', '2053-03-01')] }),
    ]);
    await run();
    on('2053-06-02');
    await run();
    const start = await cursorNow();
    const withGrace = async (days: string) =>
      createTestApp(target, { env: { GRACE_DAYS: days }, overrides: { clock }, database: t.database });

    const none = await withGrace('0'); // inGrace lapses; longLapsed was lapsed already
    await run(none);
    await run(none);
    expect(await told(start, [inGrace, longLapsed], none)).toEqual([
      ['membership.lapsed', inGrace, 'lapsed'],
      ['person.standing_changed', inGrace, 'lapsed'],
    ]);
    const long = await withGrace('100'); // both in grace again, and lapse when it ends
    await run(long);
    expect((await told(start, [inGrace, longLapsed], long)).slice(2)).toEqual([
      ['person.standing_changed', inGrace, 'grace'],
      ['person.standing_changed', longLapsed, 'grace'],
    ]);
    on('2053-06-10'); // 1 March + 100 days: longLapsed's grace ended on 9 June
    await run(long);
    expect((await told(start, [inGrace, longLapsed], long)).slice(4)).toEqual([
      ['membership.lapsed', longLapsed, 'lapsed'],
      ['person.standing_changed', longLapsed, 'lapsed'],
    ]);
  });
});
