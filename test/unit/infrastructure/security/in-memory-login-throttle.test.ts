import type { LoginThrottle } from '../../../../src/application/ports/login-throttle';
import { InMemoryLoginThrottle } from '../../../../src/infrastructure/security/in-memory-login-throttle';
import { FakeClock } from '../../support/fake-clock';

const MINUTE = 60_000;

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

describe('InMemoryLoginThrottle', () => {
  it('grants ten attempts and refuses the eleventh', async () => {
    const throttle = new InMemoryLoginThrottle(new FakeClock());
    await fail(throttle, ['user:ann'], 9);
    expect(await waitFor(throttle, ['user:ann'])).toBe(0);
    await fail(throttle, ['user:ann']);
    expect(await throttle.reserve(['user:ann'])).toEqual({ granted: false, retryAfterSeconds: 15 * 60 });
  });

  it('grants at most ten of many reservations made at once', async () => {
    const throttle = new InMemoryLoginThrottle(new FakeClock());
    const answers = await Promise.all(Array.from({ length: 41 }, () => throttle.reserve(['user:ann'])));
    expect(answers.filter((answer) => answer.granted)).toHaveLength(10);
  });

  it('counts nothing for any subject when one of them refuses', async () => {
    const throttle = new InMemoryLoginThrottle(new FakeClock());
    await fail(throttle, ['addr:1.2.3.4'], 10);
    expect(await waitFor(throttle, ['user:ann', 'addr:1.2.3.4'])).toBe(15 * 60);
    await fail(throttle, ['user:ann'], 9);
    expect(await waitFor(throttle, ['user:ann'])).toBe(0);
  });

  it('gives a released attempt back, and only that one', async () => {
    const throttle = new InMemoryLoginThrottle(new FakeClock());
    await fail(throttle, ['user:ann'], 9);
    const right = await throttle.reserve(['user:ann', 'addr:1.2.3.4']);
    if (!right.granted) throw new Error('expected a grant');
    expect(await waitFor(throttle, ['user:ann'])).toBe(15 * 60);

    await throttle.release(['user:ann', 'addr:1.2.3.4'], right.attempt);
    await throttle.release(['user:ann'], 'an attempt never granted');

    expect(await waitFor(throttle, ['user:ann'])).toBe(0);
    await fail(throttle, ['user:ann']);
    expect(await waitFor(throttle, ['user:ann'])).toBe(15 * 60);
  });

  it('lets a user who always signs in right sign in any number of times', async () => {
    const throttle = new InMemoryLoginThrottle(new FakeClock());
    for (let i = 0; i < 50; i++) expect(await waitFor(throttle, ['user:ann', 'addr:1.2.3.4'])).toBe(0);
  });

  it('releases the subject once 15 minutes have passed since the oldest counted attempt', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock);
    await fail(throttle, ['user:ann']);
    clock.advance(5 * MINUTE);
    await fail(throttle, ['user:ann'], 9);
    expect(await waitFor(throttle, ['user:ann'])).toBe(10 * 60);
    clock.advance(10 * MINUTE - 1);
    expect(await waitFor(throttle, ['user:ann'])).toBe(1);
    clock.advance(1);
    expect(await waitFor(throttle, ['user:ann'])).toBe(0);
  });

  it('rounds the waiting time up to whole seconds', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock);
    await fail(throttle, ['addr:1.2.3.4'], 10);
    clock.advance(15 * MINUTE - 1500);
    expect(await waitFor(throttle, ['addr:1.2.3.4'])).toBe(2);
  });

  it('forgets attempts that have left the window', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock);
    await fail(throttle, ['user:ann'], 9);
    clock.advance(15 * MINUTE);
    await fail(throttle, ['user:ann'], 9);
    expect(await waitFor(throttle, ['user:ann'])).toBe(0);
  });

  it('counts each subject on its own and answers the longest wait among those asked', async () => {
    const clock = new FakeClock();
    const throttle = new InMemoryLoginThrottle(clock);
    await fail(throttle, ['user:ann', 'addr:1.2.3.4'], 10);
    expect(await waitFor(throttle, ['user:bob'])).toBe(0);
    expect(await waitFor(throttle, ['user:bob', 'addr:1.2.3.4'])).toBe(15 * 60);
    clock.advance(MINUTE);
    await fail(throttle, ['user:cid'], 10);
    expect(await waitFor(throttle, ['user:ann', 'user:cid'])).toBe(15 * 60);
  });

  it('honours a smaller limit and window when given', async () => {
    const throttle = new InMemoryLoginThrottle(new FakeClock(), { limit: 2, windowMs: MINUTE });
    await fail(throttle, ['user:ann'], 2);
    expect(await waitFor(throttle, ['user:ann'])).toBe(60);
  });

  it('remembers at most maxSubjects subjects, forgetting the oldest first', async () => {
    const throttle = new InMemoryLoginThrottle(new FakeClock(), { limit: 1, maxSubjects: 3 });
    for (const subject of ['a', 'b', 'c', 'd']) await fail(throttle, [subject]);
    expect(await waitFor(throttle, ['a'])).toBe(0);
    expect(await waitFor(throttle, ['d'])).toBe(15 * 60);
  });
});
