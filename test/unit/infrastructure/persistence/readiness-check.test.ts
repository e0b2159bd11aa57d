import { ReadinessCheck } from '../../../../src/infrastructure/persistence/readiness-check';
import { memoryLogger } from '../../../support/memory-logger';

/** A probe that counts its runs and answers when the test says, failing while `down`. */
function controlledProbe() {
  const state = { runs: 0, down: false, release: () => {} };
  const probe = () => {
    state.runs += 1;
    return new Promise<void>((resolve, reject) => {
      state.release = () => (state.down ? reject(new Error('relation "people" does not exist')) : resolve());
    });
  };
  return { state, probe };
}

const events = (lines: Record<string, unknown>[]) => lines.map((line) => line.event).filter(Boolean);

describe('ReadinessCheck', () => {
  it('runs one check for all the probes that arrive while it runs, and a new one after', async () => {
    const { state, probe } = controlledProbe();
    const check = new ReadinessCheck(probe, memoryLogger().logger);
    const together = Array.from({ length: 20 }, () => check.ready());
    state.release();
    expect(await Promise.all(together)).toEqual(Array(20).fill(true));
    expect(state.runs).toBe(1);

    const later = check.ready();
    state.release();
    await expect(later).resolves.toBe(true);
    expect(state.runs).toBe(2);
  });

  it('tells the operator once when readiness is lost and once when it returns, whatever the probes in between', async () => {
    const { state, probe } = controlledProbe();
    const log = memoryLogger();
    const check = new ReadinessCheck(probe, log.logger);
    const answer = async () => {
      const ready = check.ready();
      state.release();
      return ready;
    };
    expect(await answer()).toBe(true);
    state.down = true;
    for (let i = 0; i < 5; i += 1) expect(await answer()).toBe(false);
    state.down = false;
    for (let i = 0; i < 3; i += 1) expect(await answer()).toBe(true);

    expect(events(log.lines())).toEqual(['readiness.lost', 'readiness.regained']);
    const [lost, regained] = log.lines();
    expect(lost).toMatchObject({
      level: 'error',
      reason: 'relation "people" does not exist',
      msg: expect.stringContaining('/readyz answers 503'),
    });
    expect(lost).not.toHaveProperty('err');
    expect(regained).toMatchObject({ level: 'info', msg: expect.stringContaining('/readyz answers 200') });
  });

  it('counts a check without an answer within its time as not ready, and says so', async () => {
    const log = memoryLogger();
    const check = new ReadinessCheck(() => new Promise<void>(() => {}), log.logger, 20);
    await expect(check.ready()).resolves.toBe(false);
    expect(log.lines()).toEqual([
      expect.objectContaining({ event: 'readiness.lost', reason: 'no answer within 0.02 s' }),
    ]);
  });
});
