import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { memoryLogger } from '../../support/memory-logger';

describe.each(testDatabases)('GET /readyz runs the queries requests make, on $name', (target) => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    token = await t.tokenWith(['read']);
  });
  afterAll(() => t.close());

  const ready = () => request(t.app).get('/readyz');
  const lookup = () => request(t.app).get('/people?chat_id=nobody').set('Authorization', `Bearer ${token}`);

  it.each([
    ['api_keys', 'every bearer credential'],
    ['people', 'every credential and every person'],
    ['contacts', "every person's contacts"],
    ['memberships', "every person's memberships"],
    ['clubs', "every membership's club"],
  ])('answers 503 while %s, which holds %s, is missing, and 200 once it is back', async (table) => {
    expect((await ready()).status).toBe(200);
    await t.database.dataSource.query(`ALTER TABLE ${table} RENAME TO ${table}_away`);
    try {
      const answer = await ready();
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ errors: ['the database is unavailable'] });
    } finally {
      await t.database.dataSource.query(`ALTER TABLE ${table}_away RENAME TO ${table}`);
    }
    expect((await ready()).status).toBe(200);
    expect((await lookup()).status).toBe(200);
  });

  it('logs an outage of readiness once when it starts and once when it ends, not a stack per probe', async () => {
    const log = memoryLogger();
    const logged = await createTestApp(target, { overrides: { logger: log.logger } });
    try {
      const probe = () => request(logged.app).get('/readyz');
      expect((await probe()).status).toBe(200);
      await logged.database.dataSource.query('ALTER TABLE clubs RENAME TO clubs_away');
      try {
        for (let i = 0; i < 3; i += 1) expect((await probe()).status).toBe(503);
        // Probes arriving together share one check, and its answer.
        const together = await Promise.all(Array.from({ length: 10 }, probe));
        expect(together.map((answer) => answer.status)).toEqual(Array(10).fill(503));
      } finally {
        await logged.database.dataSource.query('ALTER TABLE clubs_away RENAME TO clubs');
      }
      expect((await probe()).status).toBe(200);
      expect((await probe()).status).toBe(200);

      const lines = log.lines();
      expect(lines.filter((line) => line.event).map((line) => line.event)).toEqual([
        'readiness.lost',
        'readiness.regained',
      ]);
      expect(lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([
        expect.objectContaining({ event: 'readiness.lost', reason: expect.stringContaining('clubs') }),
      ]);
      expect(log.text()).not.toContain('    at ');
      // Each probe still has its request line, the 503s among them.
      expect(lines.filter((line) => line.path === '/readyz' && line.status === 503)).toHaveLength(13);
    } finally {
      await logged.close();
    }
  });

  // PGlite's one session is the service's: a role set on it is what every request then runs as.
  (target.name === 'pglite' ? it : it.skip)(
    'answers 503 when the session cannot read the tables (a role without rights), as requests then fail',
    async () => {
      const role = `readyz_${process.pid}`;
      await t.database.dataSource.query(`CREATE ROLE ${role}`);
      try {
        // Session-wide on purpose: what a broken session looks like to the service's queries.
        await t.database.dataSource.query(`SET ROLE ${role}`);
        expect((await ready()).status).toBe(503);
        expect((await lookup()).status).toBe(500);
      } finally {
        await t.database.dataSource.query('RESET ROLE');
        await t.database.dataSource.query(`DROP ROLE ${role}`);
      }
      expect((await ready()).status).toBe(200);
    },
  );
});
