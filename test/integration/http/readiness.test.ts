import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

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
