import { createClient } from 'redis';
import type { LoginThrottle } from '../../../src/application/ports/login-throttle';
import { InMemoryLoginThrottle } from '../../../src/infrastructure/security/in-memory-login-throttle';
import { RedisLoginThrottle } from '../../../src/infrastructure/security/redis-login-throttle';
import { FakeClock } from '../../unit/support/fake-clock';
import { deleteRedisKeys, describeWithRedis, redisUrl, uniqueRedisPrefix } from '../multi-instance/instances';

const MINUTE = 60_000;
const WINDOW = 15 * MINUTE;

/** mulberry32: a small deterministic generator, so that a failing history can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describeWithRedis('the login throttle in Redis', () => {
  const url = redisUrl ?? '';
  const prefix = uniqueRedisPrefix();
  const client = createClient({ url });

  beforeAll(() => client.connect());
  afterAll(async () => {
    await client.close();
    await deleteRedisKeys(url, prefix);
  });

  function redisThrottle(clock: FakeClock, keyPrefix = `${prefix}${Math.random()}:`) {
    return new RedisLoginThrottle({ sendCommand: (args) => client.sendCommand(args) }, clock, {
      keyPrefix,
      fallback: new InMemoryLoginThrottle(clock),
    });
  }

  it.each([1, 2, 3, 4, 5])(
    'answers exactly as the in-memory throttle over a random history (seed %i)',
    async (seed) => {
      const next = random(seed);
      const clock = new FakeClock();
      const memory = new InMemoryLoginThrottle(clock);
      const redis = redisThrottle(clock);
      const subjectSets = [['user:ada', 'addr:10.0.0.1'], ['user:bob', 'addr:10.0.0.1'], ['user:ada']];
      const answers = new Set<number>();

      for (let step = 0; step < 120; step++) {
        const roll = next();
        const subjects = subjectSets[Math.floor(next() * subjectSets.length)];
        if (roll < 0.75) {
          await memory.recordFailure(subjects);
          await redis.recordFailure(subjects);
        } else {
          // Now and then nearly a whole window passes, so failures leave it, some at the exact boundary.
          clock.advance(
            roll < 0.95 ? Math.floor(next() * 2 * MINUTE) : WINDOW - Math.floor(next() * 3) * 1000,
          );
        }
        for (const asked of subjectSets) {
          const expected = await memory.blockedFor(asked);
          expect([step, asked, await redis.blockedFor(asked)]).toEqual([step, asked, expected]);
          answers.add(expected);
        }
      }
      // The history went through blocked and free states, with waits of several lengths.
      expect(answers.has(0)).toBe(true);
      expect(answers.size).toBeGreaterThan(3);
    },
  );

  it('blocks after the 10th failure until the oldest counted leaves the window, to the millisecond', async () => {
    const clock = new FakeClock();
    const throttle = redisThrottle(clock);
    for (let i = 0; i < 9; i++) {
      await throttle.recordFailure(['user:carol']);
      clock.advance(MINUTE);
    }
    expect(await throttle.blockedFor(['user:carol'])).toBe(0);

    await throttle.recordFailure(['user:carol']);
    expect(await throttle.blockedFor(['user:carol'])).toBe(6 * 60);

    clock.advance(6 * MINUTE - 1);
    expect(await throttle.blockedFor(['user:carol'])).toBe(1);
    clock.advance(1);
    expect(await throttle.blockedFor(['user:carol'])).toBe(0);
  });

  it('shares failures between instances: 10 recorded by one block the subject on another', async () => {
    const clock = new FakeClock();
    const keyPrefix = `${prefix}shared:`;
    const first = redisThrottle(clock, keyPrefix);
    const second = redisThrottle(clock, keyPrefix);
    for (let i = 0; i < 5; i++) await first.recordFailure(['user:dave', 'addr:10.0.0.9']);
    for (let i = 0; i < 5; i++) await second.recordFailure(['user:erin', 'addr:10.0.0.9']);

    expect(await first.blockedFor(['addr:10.0.0.9'])).toBe(15 * 60);
    expect(await second.blockedFor(['addr:10.0.0.9'])).toBe(15 * 60);
    expect(await second.blockedFor(['user:dave'])).toBe(0);
  });

  it('stores neither the username nor more than one window of failures', async () => {
    const clock = new FakeClock();
    const keyPrefix = `${prefix}stored:`;
    const throttle = redisThrottle(clock, keyPrefix);
    for (let i = 0; i < 25; i++) await throttle.recordFailure(['user:frances.secret-name']);

    const keys = await client.keys(`${keyPrefix}*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain('frances');
    expect(await client.zCard(keys[0])).toBe(10);
    const ttl = await client.pTTL(keys[0]);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WINDOW);
  });
});

describe('the login throttle when Redis fails', () => {
  function failingRedisThrottle(clock: FakeClock): LoginThrottle {
    const broken = { sendCommand: () => Promise.reject(new Error('The client is offline')) };
    return new RedisLoginThrottle(broken, clock, {
      keyPrefix: 'unused:',
      fallback: new InMemoryLoginThrottle(clock),
    });
  }

  it('counts in the instance instead, so the rule still holds there', async () => {
    const clock = new FakeClock();
    const throttle = failingRedisThrottle(clock);
    for (let i = 0; i < 9; i++) await throttle.recordFailure(['user:gus', 'addr:10.0.0.2']);
    expect(await throttle.blockedFor(['user:gus'])).toBe(0);

    await throttle.recordFailure(['user:gus', 'addr:10.0.0.2']);

    expect(await throttle.blockedFor(['user:gus'])).toBe(15 * 60);
    expect(await throttle.blockedFor(['addr:10.0.0.2'])).toBe(15 * 60);
    clock.advance(WINDOW);
    expect(await throttle.blockedFor(['user:gus', 'addr:10.0.0.2'])).toBe(0);
  });
});
