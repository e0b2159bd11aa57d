import { InMemoryLoginThrottle } from '../../../../src/infrastructure/security/in-memory-login-throttle';
import { FakeClock } from '../../support/fake-clock';

const MINUTE = 60_000;

async function fail(throttle: InMemoryLoginThrottle, subjects: string[], times: number) {
  for (let i = 0; i < times; i++) await throttle.recordFailure(subjects);
}

describe('InMemoryLoginThrottle', () => {
  it('lets nine failures pass and blocks after the tenth', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock);
    await fail(throttle, ['user:ann'], 9);
    expect(await throttle.blockedFor(['user:ann'])).toBe(0);
    await throttle.recordFailure(['user:ann']);
    expect(await throttle.blockedFor(['user:ann'])).toBe(15 * 60);
  });

  it('releases the subject once 15 minutes have passed since the oldest counted failure', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock);
    await throttle.recordFailure(['user:ann']);
    clock.advance(5 * MINUTE);
    await fail(throttle, ['user:ann'], 9);
    expect(await throttle.blockedFor(['user:ann'])).toBe(10 * 60);
    clock.advance(10 * MINUTE - 1);
    expect(await throttle.blockedFor(['user:ann'])).toBe(1);
    clock.advance(1);
    expect(await throttle.blockedFor(['user:ann'])).toBe(0);
  });

  it('rounds the waiting time up to whole seconds', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock);
    await fail(throttle, ['addr:1.2.3.4'], 10);
    clock.advance(15 * MINUTE - 1500);
    expect(await throttle.blockedFor(['addr:1.2.3.4'])).toBe(2);
  });

  it('forgets failures that have left the window', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock);
    await fail(throttle, ['user:ann'], 9);
    clock.advance(15 * MINUTE);
    await fail(throttle, ['user:ann'], 9);
    expect(await throttle.blockedFor(['user:ann'])).toBe(0);
  });

  it('counts each subject on its own and answers the longest wait among those asked', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock);
    await fail(throttle, ['user:ann', 'addr:1.2.3.4'], 10);
    expect(await throttle.blockedFor(['user:bob'])).toBe(0);
    expect(await throttle.blockedFor(['user:bob', 'addr:1.2.3.4'])).toBe(15 * 60);
    expect(await throttle.blockedFor(['user:ann', 'addr:5.6.7.8'])).toBe(15 * 60);
  });

  it('honours a smaller limit and window when given', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock, { limit: 2, windowMs: MINUTE });
    await fail(throttle, ['user:ann'], 2);
    expect(await throttle.blockedFor(['user:ann'])).toBe(60);
  });

  it('remembers at most maxSubjects subjects, forgetting the oldest first', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock, { limit: 1, maxSubjects: 3 });
    for (const subject of ['a', 'b', 'c', 'd']) await throttle.recordFailure([subject]);
    expect(await throttle.blockedFor(['a'])).toBe(0);
    expect(await throttle.blockedFor(['d'])).toBeGreaterThan(0);
  });
});
