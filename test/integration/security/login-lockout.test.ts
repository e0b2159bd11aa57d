import request from 'supertest';
import { closeConnections, startConnections } from '../../../src/container';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { FakeClock } from '../../unit/support/fake-clock';
import {
  basic,
  deleteRedisKeys,
  describeWithRedis,
  redisKeys,
  redisUrl,
  uniqueAddress,
  uniqueRedisPrefix,
} from '../multi-instance/instances';

const WINDOW_MS = 15 * 60 * 1000;

describeWithRedis.each(testDatabases)('POST /keys lockout with the counters in Redis, on $name', (target) => {
  const prefix = uniqueRedisPrefix();
  const clock = new FakeClock();
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target, {
      env: { REDIS_URL: redisUrl ?? '', TRUST_PROXY: 'loopback' },
      overrides: { clock, redisKeyPrefix: prefix },
    });
    await startConnections(t.container);
  });
  afterAll(async () => {
    await closeConnections(t.container);
    await t.close();
    await deleteRedisKeys(redisUrl ?? '', prefix);
  });

  const post = (username: string, password: string, address: string) =>
    request(t.app)
      .post('/keys')
      .set('Authorization', basic(username, password))
      .set('X-Forwarded-For', address);

  it('after 10 failures for a username refuses even the right password with 429 until the window passes', async () => {
    const account = await t.createAccount();
    for (let i = 0; i < 10; i++) await post(account.username, 'wrong', uniqueAddress()).expect(401);
    // Counted in Redis (11 subjects: the username and 10 addresses), not only in this process.
    expect(await redisKeys(redisUrl ?? '', `${prefix}login:`)).toHaveLength(11);

    const blocked = await post(account.username, account.password, uniqueAddress());
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBe('900');
    expect(blocked.body).toEqual({ errors: ['too many failed attempts; try again in 900 seconds'] });

    clock.advance(WINDOW_MS - 1000);
    expect((await post(account.username, account.password, uniqueAddress())).headers['retry-after']).toBe(
      '1',
    );
    clock.advance(1000);
    await post(account.username, account.password, uniqueAddress()).expect(201);
  });

  it('after 10 failures from one address refuses every username from it, and only from it', async () => {
    const address = uniqueAddress();
    const account = await t.createAccount();
    for (let i = 0; i < 10; i++) await post(`unknown${i}`, 'wrong', address).expect(401);

    expect((await post(account.username, account.password, address)).status).toBe(429);
    await post(account.username, account.password, uniqueAddress()).expect(201);
    clock.advance(WINDOW_MS);
    await post(account.username, account.password, address).expect(201);
  });

  it('counts unknown usernames like wrong passwords, with the same answer', async () => {
    const account = await t.createAccount();
    const wrongPassword = await post(account.username, 'wrong', uniqueAddress());
    const unknownUser = await post(`${account.username}x`, 'wrong', uniqueAddress());

    expect(unknownUser.status).toBe(401);
    expect(unknownUser.body).toEqual(wrongPassword.body);
    expect(unknownUser.headers['www-authenticate']).toBe(wrongPassword.headers['www-authenticate']);
  });
});
