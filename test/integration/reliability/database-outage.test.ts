import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { createTestApp, newPerson, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { seedDirectory, startService } from './served-process';
import { serviceBuild } from '../../support/run-artifacts';

const postgres = testDatabases.filter((target) => target.name === 'postgres');

/** A connection to the server of `url` for statements about whole databases. */
async function adminClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

function urlOfDatabase(url: string, name: string): string {
  const changed = new URL(url);
  changed.pathname = `/${name}`;
  return changed.toString();
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

(postgres.length > 0 ? describe.each(postgres) : describe.skip.each([{ name: 'postgres', url: '' }]))(
  'while the PostgreSQL server refuses connections to the database ($name)',
  (target) => {
    // A database of its own, so that refusing connections to it disturbs no other test.
    const name = `outage_${process.pid}_${randomBytes(4).toString('hex')}`;
    let admin: pg.Client;
    let t: TestApp;

    const allowConnections = (allow: boolean) =>
      admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS ${allow}`);
    const terminateBackends = () =>
      admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);

    let service: Awaited<ReturnType<typeof serviceBuild>>;

    beforeAll(async () => {
      admin = await adminClient(target.url!);
      await admin.query(`CREATE DATABASE "${name}"`);
      t = await createTestApp({ name: 'postgres', url: urlOfDatabase(target.url!, name) });
      service = await serviceBuild('outage-build');
    }, 120_000);

    // A test that fails during its outage must not leave the next one without a database.
    afterEach(() => allowConnections(true));

    afterAll(async () => {
      service?.remove();
      await allowConnections(true).catch(() => undefined);
      await t?.close().catch(() => undefined);
      await terminateBackends().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`).catch(() => undefined);
      await admin.end();
    });

    it('answers 503 with the Error body, keeps /healthz up, and recovers by itself', async () => {
      const [id] = await t.addPeople([newPerson({ firstName: 'Before' })]);
      const token = await t.tokenWith(['read', 'write']);
      const auth = { Authorization: `Bearer ${token}` };
      let patches = 0;
      const needingTheDatabase = [
        () => request(t.app).get('/people').set(auth),
        () => request(t.app).get('/people?limit=1').set(auth),
        () => request(t.app).get(`/people/${id}`).set(auth),
        () =>
          request(t.app)
            .patch(`/people/${id}`)
            .set(auth)
            .send({ person: { first_name: `Name${++patches}` } }),
        () => request(t.app).post('/people/search').set(auth).send({}),
        () => request(t.app).get('/keys').set(auth),
      ];
      for (const send of needingTheDatabase) expect((await send()).status).toBe(200);

      await allowConnections(false);
      await terminateBackends();

      for (const send of needingTheDatabase) {
        const res = await send();
        expect(res.status).toBe(503);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.body).toEqual({ errors: ['the database is unavailable; try again'] });
      }
      const ready = await request(t.app).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ errors: [expect.any(String)] });
      const live = await request(t.app).get('/healthz');
      expect(live.status).toBe(200);

      await allowConnections(true);
      const started = Date.now();
      const recovered = await waitFor(async () => (await request(t.app).get('/readyz')).status === 200, 5000);
      expect(recovered).toBe(true);
      expect(Date.now() - started).toBeLessThan(5000);
      for (const send of needingTheDatabase) expect((await send()).status).toBe(200);
      // Three PATCHes were sent: before, during and after the outage. The refused one left no trace.
      expect(patches).toBe(3);
      const person = await request(t.app).get(`/people/${id}`).set(auth);
      expect(person.body.first_name).toBe('Name3');
      const [{ count }] = await t.database.dataSource.query(
        "SELECT count(*)::int AS count FROM audit_entries WHERE subject_id = $1 AND action = 'person.update'",
        [id],
      );
      expect(count).toBe(2);
    });

    it('the running service, with its own connections (pool, revocation listener), lives through it', async () => {
      const databaseUrl = urlOfDatabase(target.url!, name);
      const { token } = await seedDirectory({ databaseUrl });
      const running = await startService(service.main, { DATABASE_URL: databaseUrl });
      const call = (path: string, auth = true) =>
        fetch(`http://127.0.0.1:${running.port}${path}`, {
          headers: auth ? { Authorization: `Bearer ${token}` } : {},
        });
      try {
        expect((await call('/people')).status).toBe(200);

        await allowConnections(false);
        await terminateBackends();
        const during = await call('/people');
        expect(during.status).toBe(503);
        expect(await during.json()).toEqual({ errors: ['the database is unavailable; try again'] });
        expect((await call('/readyz', false)).status).toBe(503);
        expect((await call('/healthz', false)).status).toBe(200);
        // Long enough for the revocation listener to fail at reconnecting, at least once.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(running.child.exitCode).toBeNull();

        await allowConnections(true);
        const recovered = await waitFor(async () => (await call('/people')).status === 200, 5000);
        expect(recovered).toBe(true);
        expect((await call('/readyz', false)).status).toBe(200);

        running.child.kill('SIGTERM');
        expect(await running.exited).toEqual({ code: 0, signal: null });
      } finally {
        if (running.child.exitCode === null) running.child.kill('SIGKILL');
      }
    }, 60_000);
  },
);
