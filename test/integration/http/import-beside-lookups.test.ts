import type { Server } from 'node:http';
import request from 'supertest';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

const postgres = testDatabases.find((target) => target.name === 'postgres');
const describeOnPostgres = postgres === undefined ? describe.skip : describe;

/** Enough people added at once, into a small directory, for a first import's set-aside of indexes. */
const ADDED = 12_000;

/**
 * Issue 46, item 8: a `manage` import must not hold every other key up (SPEC §4). Bounded, not
 * timed: another key's lookup is answered while the import's transaction is still writing.
 * PostgreSQL only: PGlite's one session belongs to the import's transaction until it ends.
 */
describeOnPostgres('another key’s lookups during an import over HTTP on PostgreSQL', () => {
  let t: TestApp;
  let server: Server;

  beforeAll(async () => {
    t = await createTestApp(postgres ?? { name: 'postgres', url: null });
    server = t.app.listen(0);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  /** Whether another session (the import's) holds a lock on people for its writes. */
  async function importWrites(): Promise<boolean> {
    const [{ writing }] = await t.database.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE relation = 'people'::regclass AND pid <> pg_backend_pid()
                        AND granted AND mode IN ('RowExclusiveLock', 'AccessExclusiveLock')) AS writing`,
    );
    return writing;
  }

  it('answers a lookup by email while a large import adds people, before the import ends', async () => {
    const tag = uniqueName('look').toLowerCase();
    await t.addPerson({
      firstName: 'Lookup',
      lastName: 'Target',
      contacts: [{ kind: 'email', value: `${tag}@example.org`, label: null }],
    });
    const manager = await t.tokenWith(['read', 'manage']);
    const reader = await t.tokenWith(['read']);
    const records = Array.from({ length: ADDED }, (_, i) => ({
      first_name: `Imported${i}`,
      last_name: `${tag}`,
      contacts: [{ kind: 'email', value: `${tag}.${i}@example.org`, label: null }],
      memberships: [{ club: 'Import Club', kind: 'full', start_date: '2020-01-01', end_date: null }],
    }));

    let imported = false;
    const importing = request(server)
      .post('/imports')
      .set('Authorization', `Bearer ${manager}`)
      .send(records)
      .then((res) => {
        imported = true;
        return res;
      });
    const deadline = Date.now() + 60_000;
    while (!(await importWrites())) {
      if (imported || Date.now() > deadline) throw new Error('the import was never seen writing');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    const lookup = await request(server)
      .get('/people')
      .query({ email: `${tag}@example.org` })
      .set('Authorization', `Bearer ${reader}`);
    const writingStill = await importWrites();

    expect(lookup.status).toBe(200);
    expect(lookup.body.map((p: { first_name: string }) => p.first_name)).toEqual(['Lookup']);
    expect({ imported, writingStill }).toEqual({ imported: false, writingStill: true });
    const res = await importing;
    expect([res.status, res.body.summary?.added]).toEqual([200, ADDED]);
  }, 120_000);
});
