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

/** Counts `times` attempts that stay counted (wrong passwords). */
async function fail(throttle: LoginThrottle, subjects: string[], times = 1) {
  for (let i = 0; i < times; i++) {
    expect(await throttle.reserve(subjects)).toMatchObject({ granted: true });
  }
}

/** Seconds a new attempt would have to wait; 0 when it would be granted (and is then given back). */
async function waitFor(throttle: LoginThrottle, subjects: string[]): Promise<number> {
  const reservation = await throttle.reserve(subjects);
  if (!reservation.granted) return reservation.retryAfterSeconds;
  await throttle.release(subjects, reservation.attempt);
  return 0;
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
      let fills = 0;

      for (let step = 0; step < 160; step++) {
        const roll = next();
        const subjects = subjectSets[Math.floor(next() * subjectSets.length)];
        if (roll < 0.8) {
          const inMemory = await memory.reserve(subjects);
          const inRedis = await redis.reserve(subjects);
          expect([step, inRedis.granted]).toEqual([step, inMemory.granted]);
          // And the same subjects brought to the limit: where a lockout starts.
          if (inMemory.granted && inRedis.granted) {
            expect([step, inRedis.filled]).toEqual([step, inMemory.filled]);
            if (inMemory.filled.length > 0) fills += 1;
          }
          // Now and then the password was right: the attempt is given back.
          if (inMemory.granted && inRedis.granted && roll < 0.2) {
            await memory.release(subjects, inMemory.attempt);
            await redis.release(subjects, inRedis.attempt);
          }
        } else {
          // Now and then nearly a whole window passes, so attempts leave it, some at the exact boundary.
          clock.advance(
            roll < 0.95 ? Math.floor(next() * 2 * MINUTE) : WINDOW - Math.floor(next() * 3) * 1000,
          );
        }
        for (const asked of subjectSets) {
          const expected = await waitFor(memory, asked);
          expect([step, asked, await waitFor(redis, asked)]).toEqual([step, asked, expected]);
          answers.add(expected);
        }
      }
      // The history went through granted and refused states, with waits of several lengths.
      expect(answers.has(0)).toBe(true);
      expect(answers.size).toBeGreaterThan(3);
      expect(fills).toBeGreaterThan(0);
    },
  );

  it('grants at most ten of 41 reservations made at once, across two instances', async () => {
    const clock = new FakeClock();
    const keyPrefix = `${prefix}race:`;
    const instances = [redisThrottle(clock, keyPrefix), redisThrottle(clock, keyPrefix)];
    const answers = await Promise.all(
      Array.from({ length: 41 }, (_, i) => instances[i % 2].reserve(['user:race', `addr:10.1.0.${i}`])),
    );
    expect(answers.filter((answer) => answer.granted)).toHaveLength(10);
    for (const answer of answers.filter((a) => !a.granted)) {
      expect(answer).toEqual({ granted: false, retryAfterSeconds: 15 * 60 });
    }
  });

  it('refuses after the 10th attempt until the oldest counted leaves the window, to the millisecond', async () => {
    const clock = new FakeClock();
    const throttle = redisThrottle(clock);
    for (let i = 0; i < 9; i++) {
      await fail(throttle, ['user:carol']);
      clock.advance(MINUTE);
    }
    expect(await waitFor(throttle, ['user:carol'])).toBe(0);

    await fail(throttle, ['user:carol']);
    expect(await waitFor(throttle, ['user:carol'])).toBe(6 * 60);

    clock.advance(6 * MINUTE - 1);
    expect(await waitFor(throttle, ['user:carol'])).toBe(1);
    clock.advance(1);
    expect(await waitFor(throttle, ['user:carol'])).toBe(0);
  });

  it('shares attempts between instances: 10 counted by one refuse the subject on another', async () => {
    const clock = new FakeClock();
    const keyPrefix = `${prefix}shared:`;
    const first = redisThrottle(clock, keyPrefix);
    const second = redisThrottle(clock, keyPrefix);
    await fail(first, ['user:dave', 'addr:10.0.0.9'], 5);
    await fail(second, ['user:erin', 'addr:10.0.0.9'], 5);

    expect(await waitFor(first, ['addr:10.0.0.9'])).toBe(15 * 60);
    expect(await waitFor(second, ['addr:10.0.0.9'])).toBe(15 * 60);
    expect(await waitFor(second, ['user:dave'])).toBe(0);
  });

  it('gives a released attempt back on every instance', async () => {
    const clock = new FakeClock();
    const keyPrefix = `${prefix}released:`;
    const first = redisThrottle(clock, keyPrefix);
    const second = redisThrottle(clock, keyPrefix);
    await fail(first, ['user:fay'], 9);
    const right = await first.reserve(['user:fay']);
    expect(await waitFor(second, ['user:fay'])).toBe(15 * 60);
    if (!right.granted) throw new Error('expected a grant');

    await first.release(['user:fay'], right.attempt);

    expect(await waitFor(second, ['user:fay'])).toBe(0);
  });

  it('stores neither the username nor more than one window of attempts', async () => {
    const clock = new FakeClock();
    const keyPrefix = `${prefix}stored:`;
    const throttle = redisThrottle(clock, keyPrefix);
    for (let i = 0; i < 25; i++) await throttle.reserve(['user:frances.secret-name']);

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
    await fail(throttle, ['user:gus', 'addr:10.0.0.2'], 9);
    expect(await waitFor(throttle, ['user:gus'])).toBe(0);

    await fail(throttle, ['user:gus', 'addr:10.0.0.2']);

    expect(await waitFor(throttle, ['user:gus'])).toBe(15 * 60);
    expect(await waitFor(throttle, ['addr:10.0.0.2'])).toBe(15 * 60);
    clock.advance(WINDOW);
    expect(await waitFor(throttle, ['user:gus', 'addr:10.0.0.2'])).toBe(0);
  });

  it('grants at most ten of many reservations made at once', async () => {
    const throttle = failingRedisThrottle(new FakeClock());
    const answers = await Promise.all(Array.from({ length: 41 }, () => throttle.reserve(['user:hal'])));
    expect(answers.filter((answer) => answer.granted)).toHaveLength(10);
  });
});
