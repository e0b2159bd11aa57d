import request from 'supertest';
import { closeConnections, startConnections } from '../../../src/container';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { createTestApp, type TestApp } from '../../support/app';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { basic } from '../multi-instance/instances';

const LIMIT = 3;

describe.each(testDatabases)('rate limits on $name', (target) => {
  // One database for both configurations below: each test makes its own account and keys, and the
  // counts are each app's (in memory) or Redis's, not the database's.
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(() => database?.close());

  describe('the per-key rate limit', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp(target, { env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) }, database });
    });

    const get = (path: string, token: string) =>
      request(t.app).get(path).set('Authorization', `Bearer ${token}`);

    it('tells the budget in RateLimit and RateLimit-Policy (IETF draft 8) on every authenticated answer', async () => {
      const token = await t.tokenWith();

      const first = await get('/keys', token).expect(200);
      const second = await get('/keys', token).expect(200);

      expect(first.headers['ratelimit-policy']).toMatch(/^"3-in-1min"; q=3; w=60; pk=:[^:]+:$/);
      expect(first.headers.ratelimit).toMatch(/^"3-in-1min"; r=2; t=(60|59)$/);
      expect(second.headers.ratelimit).toMatch(/^"3-in-1min"; r=1; t=\d+$/);
    });

    it('answers the request over the limit with 429, Retry-After and the Error body', async () => {
      const token = await t.tokenWith();
      for (let i = 0; i < LIMIT; i++) await get('/keys', token).expect(200);

      const res = await get('/keys', token);

      expect(res.status).toBe(429);
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.headers.ratelimit).toMatch(/^"3-in-1min"; r=0; t=\d+$/);
      expect(res.headers['ratelimit-policy']).toMatch(/^"3-in-1min"; q=3; w=60;/);
      expect(res.headers['content-type']).toMatch(/^application\/json; charset=utf-8/);
      expect(res.body).toEqual({
        errors: [`rate limit exceeded: 3 requests a minute per key; retry after ${retryAfter} s`],
      });
    });

    it('counts every route against one budget per key', async () => {
      const token = await t.tokenWith();
      await get('/people', token).expect(200);
      await get('/keys', token).expect(200);
      await request(t.app)
        .post('/people/search')
        .set('Authorization', `Bearer ${token}`)
        .send({})
        .expect(200);

      expect((await get('/people', token)).status).toBe(429);
      expect((await request(t.app).delete('/keys').set('Authorization', `Bearer ${token}`)).status).toBe(429);
    });

    it('leaves other keys, of the same account or another, their own budget', async () => {
      const account = await t.createAccount();
      const spent = await t.issueToken(account.username, account.password);
      const sibling = await t.issueToken(account.username, account.password);
      const stranger = await t.tokenWith();
      for (let i = 0; i <= LIMIT; i++) await get('/keys', spent);
      expect((await get('/keys', spent)).status).toBe(429);

      const siblingAnswer = await get('/keys', sibling).expect(200);
      await get('/keys', stranger).expect(200);
      expect(siblingAnswer.headers.ratelimit).toMatch(/r=2;/);
    });

    it('counts nothing and adds no RateLimit header for requests refused before a key is known', async () => {
      const token = await t.tokenWith();
      const refused = await request(t.app).get('/keys').set('Authorization', 'Bearer mdk_not-a-token');
      expect(refused.status).toBe(401);
      expect(refused.headers.ratelimit).toBeUndefined();

      const first = await get('/keys', token).expect(200);
      expect(first.headers.ratelimit).toMatch(/r=2;/);
    });

    it('does not apply to POST /keys, which the login throttle guards instead', async () => {
      const account = await t.createAccount();
      for (let i = 0; i <= LIMIT; i++) {
        const res = await request(t.app)
          .post('/keys')
          .set('Authorization', basic(account.username, account.password))
          .expect(201);
        expect(res.headers.ratelimit).toBeUndefined();
      }
    });
  });

  describe('the rate limit when Redis cannot be reached', () => {
    let t: TestApp;

    beforeAll(async () => {
      // Port 1: nothing listens, every connection is refused at once.
      t = await createTestApp(target, {
        env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), REDIS_URL: 'redis://127.0.0.1:1' },
        database,
      });
      await startConnections(t.container);
    });
    afterAll(() => closeConnections(t.container));

    it('keeps serving (fails open) rather than answering errors', async () => {
      const token = await t.tokenWith();
      for (let i = 0; i < LIMIT + 2; i++) {
        const res = await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`);
        expect(res.status).toBe(200);
      }
    });

    it('still throttles failed logins, counting in this instance', async () => {
      const account = await t.createAccount();
      for (let i = 0; i < 10; i++) {
        await request(t.app).post('/keys').set('Authorization', basic(account.username, 'wrong')).expect(401);
      }

      const res = await request(t.app)
        .post('/keys')
        .set('Authorization', basic(account.username, account.password));

      expect(res.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(890);
    });
  });
});
