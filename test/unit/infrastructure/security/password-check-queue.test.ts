import { Overloaded } from '../../../../src/domain/errors';
import { PasswordCheckQueue } from '../../../../src/infrastructure/security/password-check-queue';

/** A promise and the function that settles it: a task that runs until the test lets it end. */
function gate(): { done: Promise<void>; open: () => void } {
  let open = () => {};
  const done = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { done, open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PasswordCheckQueue', () => {
  it('runs no more tasks at once than its concurrency, and finishes them all', async () => {
    const queue = new PasswordCheckQueue({ concurrency: 2, maxWaitMs: 10_000 });
    let running = 0;
    let most = 0;
    const task = async (n: number) => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      running -= 1;
      return n;
    };
    const results = await Promise.all(Array.from({ length: 8 }, (_, n) => queue.run(() => task(n))));
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(2);
  });

  it('never runs two tasks of one lane at once, while other lanes go ahead', async () => {
    const queue = new PasswordCheckQueue({ concurrency: 4, maxWaitMs: 10_000 });
    const started: string[] = [];
    const first = gate();
    const ann1 = queue.run(
      async () => {
        started.push('ann1');
        await first.done;
      },
      { lane: 'ann' },
    );
    const ann2 = queue.run(
      async () => {
        started.push('ann2');
      },
      { lane: 'ann' },
    );
    const bob = queue.run(
      async () => {
        started.push('bob');
      },
      { lane: 'bob' },
    );
    await bob;
    expect(started).toEqual(['ann1', 'bob']);
    first.open();
    await Promise.all([ann1, ann2]);
    expect(started).toEqual(['ann1', 'bob', 'ann2']);
  });

  it('starts the task of a username or address not served lately before the rest of a storm', async () => {
    const queue = new PasswordCheckQueue({ concurrency: 1, maxWaitMs: 10_000 });
    const started: string[] = [];
    const busy = gate();
    const blocker = queue.run(() => busy.done);
    const record = (name: string, shares: string[], lane?: string) =>
      queue.run(
        async () => {
          started.push(name);
        },
        { shares, lane },
      );
    // Ten guesses for one username from one address, then five for five usernames from another.
    const storm = Array.from({ length: 10 }, (_, i) =>
      record(`mallory${i}`, ['user:mallory', 'addr:a'], 'mallory'),
    );
    const spray = Array.from({ length: 5 }, (_, i) => record(`spray${i}`, [`user:u${i}`, 'addr:b'], `u${i}`));
    const ann = record('ann', ['user:ann', 'addr:c'], 'ann');
    expect(queue.waitingCount).toBe(16);

    busy.open();
    await Promise.all([blocker, ...storm, ...spray, ann]);

    // Each of the three takes turns: ann waits for one check of each storm, not for fifteen.
    expect(started.slice(0, 3)).toEqual(['mallory0', 'spray0', 'ann']);
    expect(started.filter((name) => name.startsWith('mallory'))).toEqual(
      Array.from({ length: 10 }, (_, i) => `mallory${i}`),
    );
  });

  it('refuses a bounded task that cannot start within maxWaitMs, and never runs it', async () => {
    const queue = new PasswordCheckQueue({ concurrency: 1, maxWaitMs: 20 });
    const busy = gate();
    const blocker = queue.run(() => busy.done);
    let ran = false;
    const refused = queue.run(
      async () => {
        ran = true;
      },
      { bounded: true, shares: ['user:ann'] },
    );
    await expect(refused).rejects.toThrow(Overloaded);
    await expect(refused).rejects.toMatchObject({ retryAfterSeconds: 1 });
    expect(queue.waitingCount).toBe(0);

    busy.open();
    await blocker;
    await tick();
    expect(ran).toBe(false);
    // Its place is gone: the next task starts at once.
    await expect(queue.run(async () => 'next', { bounded: true, shares: ['user:ann'] })).resolves.toBe(
      'next',
    );
  });

  it('lets an unbounded task wait as long as it takes', async () => {
    const queue = new PasswordCheckQueue({ concurrency: 1, maxWaitMs: 5 });
    const busy = gate();
    const blocker = queue.run(() => busy.done);
    const patient = queue.run(async () => 'done');
    await new Promise((resolve) => setTimeout(resolve, 30));
    busy.open();
    await blocker;
    await expect(patient).resolves.toBe('done');
  });

  it('passes a task failure on and keeps serving', async () => {
    const queue = new PasswordCheckQueue({ concurrency: 1, maxWaitMs: 10_000 });
    await expect(
      queue.run(() => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(queue.run(async () => 'after')).resolves.toBe('after');
  });
});
