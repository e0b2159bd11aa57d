import { ConcurrencyLimit } from '../../../../src/infrastructure/persistence/concurrency-limit';

/** A task that runs until `finish` is called, recording when it started. */
function heldTask(started: number[], id: number) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    task: async () => {
      started.push(id);
      await done;
      return id;
    },
    finish: () => finish(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrencyLimit', () => {
  it('runs at most its limit at once, and the waiting ones in the order they came', async () => {
    const limit = new ConcurrencyLimit(2);
    const started: number[] = [];
    const tasks = [1, 2, 3, 4].map((id) => heldTask(started, id));
    const results = tasks.map(({ task }) => limit.run(task));
    await settle();
    expect(started).toEqual([1, 2]);

    tasks[1].finish();
    await settle();
    expect(started).toEqual([1, 2, 3]);
    // A newcomer does not overtake the one still waiting.
    const late = heldTask(started, 5);
    const lateResult = limit.run(late.task);
    tasks[0].finish();
    await settle();
    expect(started).toEqual([1, 2, 3, 4]);

    for (const { finish } of [...tasks, late]) finish();
    expect(await Promise.all([...results, lateResult])).toEqual([1, 2, 3, 4, 5]);
  });

  it('frees the place of a task that fails', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(() => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    await expect(limit.run(async () => 'next')).resolves.toBe('next');
  });

  describe('resting while others wait', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    async function secondStartsAfter(othersWaiting: boolean, restRatio?: number): Promise<number> {
      const limit = new ConcurrencyLimit(1, { restWhile: () => othersWaiting, restRatio });
      const takes50ms = () => new Promise<string>((resolve) => setTimeout(() => resolve('first'), 50));
      const first = limit.run(takes50ms);
      let startedAt = -1;
      const second = limit.run(async () => {
        startedAt = performance.now();
      });
      const origin = performance.now();
      await jest.advanceTimersByTimeAsync(50);
      // The first task's result is not held back by the rest.
      await expect(first).resolves.toBe('first');
      await jest.advanceTimersByTimeAsync(150);
      await second;
      return startedAt - origin;
    }

    it('keeps the place as long again as the task took while others wait', async () => {
      const startedAfter = await secondStartsAfter(true);
      expect(startedAfter).toBeGreaterThanOrEqual(100);
      expect(startedAfter).toBeLessThan(110);
    });

    it('keeps it restRatio times as long as the task took', async () => {
      const startedAfter = await secondStartsAfter(true, 2);
      expect(startedAfter).toBeGreaterThanOrEqual(150);
      expect(startedAfter).toBeLessThan(160);
    });

    it('hands the place on at once when nobody else waits', async () => {
      const startedAfter = await secondStartsAfter(false);
      expect(startedAfter).toBeGreaterThanOrEqual(50);
      expect(startedAfter).toBeLessThan(60);
    });
  });
});
