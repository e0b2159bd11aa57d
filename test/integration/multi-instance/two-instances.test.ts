import request from 'supertest';
import { SetAccountDisabled } from '../../../src/application/accounts/set-account-disabled';
import { ErasePerson } from '../../../src/application/people/erase-people';
import { loadConfig } from '../../../src/config';
import { createContainer } from '../../../src/container';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';
import {
  accountWithKey,
  basic,
  deleteRedisKeys,
  describeWithRedis,
  type Instance,
  openSameSchema,
  redisUrl,
  startInstance,
  uniqueAddress,
  uniqueRedisPrefix,
  waitFor,
} from './instances';

const postgres = testDatabases.find((target) => target.name === 'postgres');
const describeTwoInstances = postgres === undefined ? describe.skip : describeWithRedis;
const LIMIT = 6;

/**
 * Two instances of the service on one PostgreSQL schema and one Redis, as behind a load balancer,
 * plus a third pool standing for the command-line tool run from another process.
 */
describeTwoInstances('two instances on one PostgreSQL database and one Redis', () => {
  const databaseUrl = postgres?.url ?? '';
  const prefix = uniqueRedisPrefix();
  let databases: Database[] = [];
  let a: Instance;
  let b: Instance;
  let cliDatabase: Database;

  beforeAll(async () => {
    const first = await openTestDatabase({ name: 'postgres', url: databaseUrl });
    const second = await openSameSchema(first, databaseUrl);
    cliDatabase = await openSameSchema(first, databaseUrl);
    // The first one drops the schema: closed last.
    databases = [cliDatabase, second, first];
    const env = {
      REDIS_URL: redisUrl ?? '',
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      TRUST_PROXY: 'loopback',
    };
    a = await startInstance(first, databaseUrl, { env, redisKeyPrefix: prefix });
    b = await startInstance(second, databaseUrl, { env, redisKeyPrefix: prefix });
    await Promise.all([a.listening(), b.listening()]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    for (const database of databases) await database.close();
    await deleteRedisKeys(redisUrl ?? '', prefix);
  });

  const bearer = (token: string) => `Bearer ${token}`;

  /** Polls the instance until it refuses the token; the milliseconds that took. */
  function refusedWithin(instance: Instance, token: string, timeoutMs: number): Promise<number> {
    return waitFor(async () => {
      const res = await request(instance.app).get('/keys').set('Authorization', bearer(token));
      return res.status === 401;
    }, timeoutMs);
  }

  describe('revocation', () => {
    it('a key revoked with DELETE /keys on A is refused by A at once and by B within one second', async () => {
      const holder = await accountWithKey(a.container);
      // B has just verified the key, so a cache would hold it.
      await request(b.app).get('/keys').set('Authorization', bearer(holder.token)).expect(200);
      await request(b.app).get('/keys').set('Authorization', bearer(holder.token)).expect(200);

      await request(a.app).delete('/keys').set('Authorization', bearer(holder.token)).expect(200);

      await request(a.app).get('/keys').set('Authorization', bearer(holder.token)).expect(401);
      expect(await refusedWithin(b, holder.token, 1000)).toBeLessThan(1000);
    });

    it('a key revoked with DELETE /keys/:id on B is refused by A within one second', async () => {
      const holder = await accountWithKey(a.container);
      const other = await request(a.app)
        .post('/keys')
        .set('Authorization', basic(holder.username, holder.password))
        .set('X-Forwarded-For', uniqueAddress())
        .expect(201);
      await request(a.app).get('/people').set('Authorization', bearer(other.body.token)).expect(200);

      await request(b.app)
        .delete(`/keys/${other.body.id}`)
        .set('Authorization', bearer(holder.token))
        .expect(200);

      expect(await refusedWithin(a, other.body.token, 1000)).toBeLessThan(1000);
      await request(b.app).get('/keys').set('Authorization', bearer(other.body.token)).expect(401);
    });

    it('an account disabled by the command line from another process is refused by both within one second', async () => {
      const holder = await accountWithKey(a.container);
      await request(a.app).get('/keys').set('Authorization', bearer(holder.token)).expect(200);
      await request(b.app).get('/keys').set('Authorization', bearer(holder.token)).expect(200);
      // What `accounts disable` runs: its own container, no listener, no Redis.
      const cli = createContainer(loadConfig({ BCRYPT_COST: '4', LOG_LEVEL: 'silent' }), cliDatabase);

      await cli.get(SetAccountDisabled).execute({ username: holder.username, disabled: true });

      const [toA, toB] = await Promise.all([
        refusedWithin(a, holder.token, 1000),
        refusedWithin(b, holder.token, 1000),
      ]);
      expect(Math.max(toA, toB)).toBeLessThan(1000);
    });

    it('the keys of a person erased by the command line from another process are refused by both within one second', async () => {
      const holder = await accountWithKey(a.container);
      await request(a.app).get('/keys').set('Authorization', bearer(holder.token)).expect(200);
      await request(b.app).get('/keys').set('Authorization', bearer(holder.token)).expect(200);
      const cli = createContainer(loadConfig({ BCRYPT_COST: '4', LOG_LEVEL: 'silent' }), cliDatabase);

      await cli.get(ErasePerson).execute({ id: holder.personId, confirmAccount: true });

      const [toA, toB] = await Promise.all([
        refusedWithin(a, holder.token, 1000),
        refusedWithin(b, holder.token, 1000),
      ]);
      expect(Math.max(toA, toB)).toBeLessThan(1000);
    });

    it('a key revoked behind the service’s back (no notification) is still refused within one second', async () => {
      const holder = await accountWithKey(a.container);
      await request(b.app).get('/keys').set('Authorization', bearer(holder.token)).expect(200);

      await cliDatabase.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE person_id = $1', [
        holder.personId,
      ]);

      expect(await refusedWithin(b, holder.token, 1000)).toBeLessThan(1000);
    });
  });

  describe('the rate limit', () => {
    it('counts a key’s requests on both instances against one budget', async () => {
      const { token } = await accountWithKey(a.container);
      const remaining: string[] = [];
      for (let i = 0; i < LIMIT; i++) {
        const instance = i % 2 === 0 ? a : b;
        const res = await request(instance.app).get('/keys').set('Authorization', bearer(token)).expect(200);
        remaining.push(String(res.headers.ratelimit).match(/r=(\d+)/)?.[1] ?? '?');
      }
      expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);

      for (const instance of [a, b]) {
        const res = await request(instance.app).get('/keys').set('Authorization', bearer(token));
        expect(res.status).toBe(429);
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(res.body.errors[0]).toMatch(/^rate limit exceeded: 6 requests a minute per key/);
      }
    });

    it('keeps the budgets of two keys apart on both instances', async () => {
      const spent = await accountWithKey(a.container);
      const fresh = await accountWithKey(a.container);
      for (let i = 0; i <= LIMIT; i++) {
        await request(i % 2 === 0 ? a.app : b.app)
          .get('/keys')
          .set('Authorization', bearer(spent.token));
      }

      await request(b.app).get('/keys').set('Authorization', bearer(fresh.token)).expect(200);
      await request(a.app).get('/keys').set('Authorization', bearer(fresh.token)).expect(200);
    });
  });

  describe('the login throttle', () => {
    it('10 failures for one username on A lock it out on B, even with the right password', async () => {
      const holder = await accountWithKey(a.container);
      for (let i = 0; i < 10; i++) {
        await request(a.app)
          .post('/keys')
          .set('Authorization', basic(holder.username, 'wrong password'))
          .set('X-Forwarded-For', uniqueAddress())
          .expect(401);
      }

      const res = await request(b.app)
        .post('/keys')
        .set('Authorization', basic(holder.username, holder.password))
        .set('X-Forwarded-For', uniqueAddress());

      expect(res.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(890);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(900);
    });

    it('10 failures from one address, split between A and B, lock that address out on both', async () => {
      const address = uniqueAddress();
      const holder = await accountWithKey(a.container);
      for (let i = 0; i < 10; i++) {
        await request(i % 2 === 0 ? a.app : b.app)
          .post('/keys')
          .set('Authorization', basic(`nobody${i}`, 'wrong password'))
          .set('X-Forwarded-For', address)
          .expect(401);
      }

      for (const instance of [a, b]) {
        const res = await request(instance.app)
          .post('/keys')
          .set('Authorization', basic(holder.username, holder.password))
          .set('X-Forwarded-For', address);
        expect(res.status).toBe(429);
      }
      await request(b.app)
        .post('/keys')
        .set('Authorization', basic(holder.username, holder.password))
        .set('X-Forwarded-For', uniqueAddress())
        .expect(201);
    });
  });
});
