import type { DeliverWebhooks } from '../../../../src/application/webhooks/deliver-webhooks';
import { Unavailable } from '../../../../src/domain/errors';
import { WebhookRunner } from '../../../../src/infrastructure/webhooks/webhook-runner';
import { memoryLogger } from '../../../support/memory-logger';

/** An engine with nothing to send, whose database is away while `down` says so. */
function engine(state: { down: boolean; failure: () => Error }): DeliverWebhooks {
  const ask = async <T>(answer: T): Promise<T> => {
    if (state.down) throw state.failure();
    return answer;
  };
  return {
    claimWindows: () => ask([]),
    claim: () => ask([]),
    msUntilNextDue: () => ask(null),
  } as unknown as DeliverWebhooks;
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('not within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the webhook runner as the watch on the database', () => {
  it('logs the database lost once, however long it stays away, and regained once when it answers', async () => {
    const log = memoryLogger();
    const state = { down: false, failure: () => new Unavailable('the database is unavailable') };
    const runner = new WebhookRunner(engine(state), {
      concurrency: 1,
      pollIntervalMs: 5,
      logger: log.logger,
    });
    runner.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state.down = true;
      await new Promise((resolve) => setTimeout(resolve, 100));
      const lost = log.lines().filter((line) => line.event === 'database.lost');
      expect(lost).toEqual([
        expect.objectContaining({ level: 'error', msg: expect.stringMatching(/^database lost/) }),
      ]);
      state.down = false;
      await until(() => log.lines().some((line) => line.event === 'database.regained'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(
        log
          .lines()
          .map((line) => line.event)
          .filter(Boolean),
      ).toEqual(['database.lost', 'database.regained']);
    } finally {
      await runner.stop();
    }
  });

  it('tells another failure apart: no database event for it', async () => {
    const log = memoryLogger();
    const state = { down: true, failure: () => new Error('syntax error at or near "SELEC"') };
    const runner = new WebhookRunner(engine(state), {
      concurrency: 1,
      pollIntervalMs: 5,
      logger: log.logger,
    });
    runner.start();
    try {
      await until(() => log.lines().length > 0);
      state.down = false;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(log.lines()).toEqual([
        expect.objectContaining({ level: 'warn', msg: 'webhooks: looking for work failed; trying again' }),
      ]);
    } finally {
      await runner.stop();
    }
  });
});
