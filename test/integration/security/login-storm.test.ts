import request from 'supertest';
import type { CheckedFor, PasswordHasher } from '../../../src/application/ports/password-hasher';
import { closeConnections, startConnections } from '../../../src/container';
import { BcryptPasswordHasher } from '../../../src/infrastructure/security/bcrypt-password-hasher';
import { PasswordCheckQueue } from '../../../src/infrastructure/security/password-check-queue';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { FakeClock } from '../../unit/support/fake-clock';
import {
  basic,
  deleteRedisKeys,
  redisUrl,
  uniqueAddress,
  uniqueRedisPrefix,
  waitFor,
} from '../multi-instance/instances';

/**
 * bcrypt at cost 4 in a queue of one, counting the password checks that ran (a check refused by a
 * full queue never ran) in the order they finished, which with one at a time is the order they
 * started. `queue` is the test's own: it can hold the one slot to let sign-ins pile up.
 */
class CountingPasswordHasher implements PasswordHasher {
  readonly checked: string[] = [];
  private inner!: BcryptPasswordHasher;
  queue!: PasswordCheckQueue;

  constructor() {
    this.useQueue(30_000);
  }

  /** A fresh queue of one whose sign-ins wait at most `maxWaitMs`. */
  useQueue(maxWaitMs: number): void {
    this.queue = new PasswordCheckQueue({ concurrency: 1, maxWaitMs });
    this.inner = new BcryptPasswordHasher(4, this.queue);
  }

  /** Holds the queue's slot until the returned function is called. */
  hold(): () => void {
    let release = () => {};
    void this.queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    return () => release();
  }

  hash(password: string): Promise<string> {
    return this.inner.hash(password);
  }

  async verify(password: string, hash: string | null, checkedFor?: CheckedFor): Promise<boolean> {
    const matches = await this.inner.verify(password, hash, checkedFor);
    this.checked.push(checkedFor?.username ?? '?');
    return matches;
  }
}

const throttles = [
  { name: 'in memory', env: {} as Record<string, string> },
  ...(redisUrl === null ? [] : [{ name: 'in Redis', env: { REDIS_URL: redisUrl } }]),
];

const cases = testDatabases.flatMap((target) => throttles.map((throttle) => ({ target, throttle })));

describe.each(cases)(
  'POST /keys under a storm, counters $throttle.name, on $target.name',
  ({ target, throttle }) => {
    const prefix = uniqueRedisPrefix();
    const passwords = new CountingPasswordHasher();
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp(target, {
        env: { TRUST_PROXY: 'loopback', ...throttle.env },
        overrides: { clock: new FakeClock(), passwordHasher: passwords, redisKeyPrefix: prefix },
      });
      await startConnections(t.container);
    });
    afterAll(async () => {
      await closeConnections(t.container);
      await t.close();
      if (redisUrl !== null) await deleteRedisKeys(redisUrl, prefix);
    });
    beforeEach(() => {
      passwords.useQueue(30_000);
      passwords.checked.length = 0;
    });

    /** Sends the sign-in now; `answered` collects its status as soon as it comes. */
    function signIn(username: string, password: string, address: string, answered: number[] = []) {
      return request(t.app)
        .post('/keys')
        .set('Authorization', basic(username, password))
        .set('X-Forwarded-For', address)
        .then((res) => {
          answered.push(res.status);
          return res;
        });
    }

    it('checks at most 10 of 41 passwords in flight at once, and answers the right one among them 429', async () => {
      const account = await t.createAccount();
      const open = passwords.hold();
      const answered: number[] = [];
      const wrong = Array.from({ length: 40 }, (_, i) =>
        signIn(account.username, `guess ${i}`, uniqueAddress(), answered),
      );
      // Every guess but the ten being checked is refused at once, while those ten are still waiting.
      await waitFor(() => answered.length >= 30, 10_000);
      const right = await signIn(account.username, account.password, uniqueAddress());
      open();
      const statuses = (await Promise.all(wrong)).map((res) => res.status);

      expect(right.status).toBe(429);
      expect(right.headers['retry-after']).toBe('900');
      expect(statuses.filter((status) => status === 401)).toHaveLength(10);
      expect(statuses.filter((status) => status === 429)).toHaveLength(30);
      expect(passwords.checked).toHaveLength(10);
      // The ten failures stay counted: the right password is still refused afterwards.
      expect((await signIn(account.username, account.password, uniqueAddress())).status).toBe(429);
    });

    it('refuses with 503 and Retry-After a sign-in whose check cannot start within the bound, uncounted', async () => {
      const account = await t.createAccount();
      passwords.useQueue(30);
      const open = passwords.hold();
      const address = uniqueAddress();
      for (let i = 0; i < 12; i++) {
        const res = await signIn(account.username, `guess ${i}`, address);
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.body).toEqual({ errors: [expect.stringContaining('try again')] });
      }
      open();
      expect(passwords.checked).toEqual([]);
      // None of the twelve was checked, so none counts: the right password gets in.
      expect((await signIn(account.username, account.password, address)).status).toBe(201);
    });

    it('starts the check of a sign-in from elsewhere before the rest of a storm on another username', async () => {
      const [mallory, ann] = [await t.createAccount(), await t.createAccount()];
      const open = passwords.hold();
      const answered: number[] = [];
      const storm = Array.from({ length: 40 }, (_, i) =>
        signIn(mallory.username, `guess ${i}`, '203.0.113.66', answered),
      );
      await waitFor(() => answered.length >= 30, 10_000);
      const legitimate = signIn(ann.username, ann.password, uniqueAddress());
      // The ten guesses being checked and Ann's sign-in all wait for the held slot.
      await waitFor(() => passwords.queue.waitingCount === 11, 10_000);
      open();
      const [res] = await Promise.all([legitimate, ...storm]);

      expect(res.status).toBe(201);
      expect(passwords.checked).toHaveLength(11);
      // Ann waits for at most the one guess that arrived first, not for all ten.
      expect(passwords.checked.indexOf(ann.username.toLowerCase())).toBeLessThanOrEqual(1);
    });
  },
);
