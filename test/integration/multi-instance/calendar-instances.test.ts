import request from 'supertest';
import { AnnounceMembershipTransitions } from '../../../src/application/changes/announce-membership-transitions';
import type { NewPerson, PersonRepository } from '../../../src/application/ports/person-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { SystemClock } from '../../../src/infrastructure/system-clock';
import { newPerson, uniqueName } from '../../support/app';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { accountWithKey, type Instance, openSameSchema, startInstance, waitFor } from './instances';

const postgres = testDatabases.find((target) => target.name === 'postgres');
const describeOnPostgres = postgres === undefined ? describe.skip : describe;

/** One clock for every instance, as if their machines agreed; stopped at a moment the test moves. */
class StoppedClock extends SystemClock {
  private moment = new Date('2030-01-01T12:00:00Z');

  constructor() {
    super('UTC');
  }

  override now(): Date {
    return new Date(this.moment);
  }

  set(iso: string): void {
    this.moment = new Date(iso);
  }
}

interface ChangeJson {
  type: string;
  person_id: number;
}

/**
 * The calendar job runs on every instance (at start and every minute): two instances on one
 * PostgreSQL schema tell each membership's start and end once between them, and an instance
 * started after a downtime catches up on what came due meanwhile.
 */
describeOnPostgres('the calendar on two instances of one PostgreSQL database', () => {
  const databaseUrl = postgres?.url ?? '';
  const clock = new StoppedClock();
  let first: Database;
  let databases: Database[] = [];
  let instances: Instance[] = [];
  let token: string;

  beforeAll(async () => {
    first = await openTestDatabase({ name: 'postgres', url: databaseUrl });
    databases = [await openSameSchema(first, databaseUrl), await openSameSchema(first, databaseUrl), first];
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    // The first one drops the schema: closed last.
    for (const database of databases) await database.close();
  });

  // Changes are stamped by the database's clock, years before this one: kept for the test.
  const start = (database: Database) =>
    startInstance(database, databaseUrl, { env: { CHANGES_RETENTION_DAYS: '3650' }, overrides: { clock } });

  async function changesAfter(instance: Instance, cursor: string): Promise<ChangeJson[]> {
    const changes: ChangeJson[] = [];
    for (let after = cursor; ; ) {
      const res = await request(instance.app)
        .get(`/changes?after=${after}&limit=1000`)
        .set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
      changes.push(...res.body.changes);
      if (!res.body.has_more) return changes;
      after = res.body.cursor;
    }
  }

  const tally = (changes: ChangeJson[]) => {
    const counts = new Map<string, number>();
    for (const c of changes)
      counts.set(`${c.type} ${c.person_id}`, (counts.get(`${c.type} ${c.person_id}`) ?? 0) + 1);
    return counts;
  };

  it('tells each start, end and lapse once between them, and catches up after both were down', async () => {
    const member = (startDate: string, endDate: string | null): NewPerson =>
      newPerson({ memberships: [{ club: uniqueName('Club'), kind: null, startDate, endDate }] });
    const people = first.dataSource.manager;
    const repository = () => instances[0].container.get<PersonRepository>(TYPES.PersonRepository);

    instances = [await start(databases[0]), await start(databases[1])];
    token = (await accountWithKey(instances[0].container, ['read'])).token;
    await repository().insertMany([
      ...Array.from({ length: 300 }, () => member('2030-01-02', '2030-01-03')),
      ...Array.from({ length: 100 }, () => member('2030-01-05', null)),
    ]);
    const ids: { id: number; start_date: string }[] = await people.query(
      `SELECT p.id, m.start_date FROM people p JOIN memberships m ON m.person_id = p.id
        WHERE m.start_date >= '2030-01-01' ORDER BY p.id`,
    );
    const cursor = (
      await request(instances[1].app).get('/people?limit=1').set('Authorization', `Bearer ${token}`)
    ).headers['changes-cursor'];

    // The 2nd: both instances run the job at once, twice each.
    clock.set('2030-01-02T00:00:30Z');
    await Promise.all(
      [0, 1, 0, 1].map((i) => instances[i].container.get(AnnounceMembershipTransitions).execute()),
    );
    const onTheSecond = tally(await changesAfter(instances[0], cursor));
    const startedOnTheSecond = ids.filter((row) => row.start_date === '2030-01-02').map((row) => row.id);
    expect(startedOnTheSecond).toHaveLength(300);
    expect(onTheSecond).toEqual(new Map(startedOnTheSecond.map((id) => [`membership.started ${id}`, 1])));

    // Both down over the 3rd to the 9th; one comes back on the 10th and catches up at start-up.
    await Promise.all(instances.map((instance) => instance.close()));
    clock.set('2030-01-10T08:00:00Z');
    instances = [await start(databases[1])];
    // Started, ended, started; and (GRACE_DAYS=0) lapsed on the 4th, each once.
    const expected = 300 + 300 + 100 + 300;
    await waitFor(async () => (await changesAfter(instances[0], cursor)).length >= expected, 20_000);
    await instances[0].container.get(AnnounceMembershipTransitions).execute();

    const all = tally(await changesAfter(instances[0], cursor));
    expect([...all.values()].every((count) => count === 1)).toBe(true);
    expect(all.size).toBe(expected);
    for (const { id, start_date: startDate } of ids) {
      expect(all.get(`membership.started ${id}`)).toBe(1);
      if (startDate === '2030-01-02') expect(all.get(`membership.ended ${id}`)).toBe(1);
      if (startDate === '2030-01-02') expect(all.get(`membership.lapsed ${id}`)).toBe(1);
    }
  });
});
