import type { DeliveryOutcome, WindowResult } from '../../../../src/application/ports/webhook-store';
import { windowRecord } from '../../../../src/application/webhooks/window-record';

const at = (second: number) => new Date(Date.UTC(2025, 2, 15, 12, 0, second));

/** The result of change `seq`, attempted at `second` (null: never sent). */
function result(seq: number, second: number | null, outcome: DeliveryOutcome): WindowResult {
  return {
    change: { seq, type: 'person.updated', messageId: `m${seq}`, payload: `{"seq":${seq}}` },
    attempt:
      second === null
        ? null
        : {
            at: at(second),
            statusCode: outcome.status === 'delivered' ? 200 : 503,
            durationMs: 5,
            error: null,
          },
    outcome,
  };
}

const delivered: DeliveryOutcome = { status: 'delivered' };
const retried = (countsAsFailure: boolean): DeliveryOutcome => ({
  status: 'pending',
  nextAttemptAt: at(59),
  countsAsFailure,
});
const givenUp = (disableSubscription: string | null): DeliveryOutcome => ({
  status: 'failed',
  disableSubscription,
});

describe('windowRecord', () => {
  it('records a window that was all delivered as a success, its results as they are', () => {
    const results = [result(1, 1, delivered), result(2, 2, delivered)];
    expect(windowRecord(results)).toEqual({ results, succeeded: true, failingFrom: null, disable: null });
  });

  it('neither succeeds nor fails a window of which nothing was sent', () => {
    const results = [result(1, null, retried(false)), result(2, null, retried(false))];
    expect(windowRecord(results)).toEqual({ results, succeeded: false, failingFrom: null, disable: null });
  });

  it('marks failing from the first failure after the last success, in the order the attempts began', () => {
    // Listed against the order they began: 4 at 10 s, 3 at 20 s, 2 at 30 s, 1 at 40 s.
    const results = [
      result(1, 40, givenUp(null)),
      result(2, 30, retried(true)),
      result(3, 20, delivered),
      result(4, 10, retried(true)),
    ];
    expect(windowRecord(results)).toMatchObject({ succeeded: true, failingFrom: at(30), disable: null });
  });

  it('clears the failing mark when the last attempt to begin succeeded', () => {
    const results = [result(1, 30, delivered), result(2, 10, retried(true)), result(3, 20, givenUp(null))];
    expect(windowRecord(results)).toMatchObject({ succeeded: true, failingFrom: null, disable: null });
  });

  it('marks failing from the first failure when nothing succeeded', () => {
    const results = [result(1, 20, retried(true)), result(2, 10, givenUp(null))];
    expect(windowRecord(results)).toMatchObject({ succeeded: false, failingFrom: at(10), disable: null });
  });

  it('does not count a retry that is not yet a failure (a receiver asking to wait) as failing', () => {
    const results = [result(1, 10, retried(false)), result(2, 20, retried(false))];
    expect(windowRecord(results)).toEqual({ results, succeeded: false, failingFrom: null, disable: null });
  });

  it('disables the subscription at the first give-up with a reason, and keeps every change it did not deliver waiting', () => {
    const results = [
      result(1, 10, delivered),
      result(2, 30, givenUp('the receiver answered 410 Gone')),
      result(3, 20, givenUp('an earlier reason')),
      result(4, 40, retried(true)),
      result(5, null, retried(false)),
      result(6, 50, givenUp(null)),
    ];

    const record = windowRecord(results);

    expect(record.disable).toEqual({ reason: 'an earlier reason', at: at(20) });
    // Pending, for `webhooks enable`: what gave up counts as the failure it was.
    const waits = (second: number): DeliveryOutcome => ({
      status: 'pending',
      nextAttemptAt: at(second),
      countsAsFailure: true,
    });
    expect(record.results.map((r) => [r.change.seq, r.outcome])).toEqual([
      [1, delivered],
      [2, waits(30)],
      [3, waits(20)],
      [4, retried(true)],
      [5, retried(false)],
      [6, waits(50)],
    ]);
    // The attempts themselves stay as they were made.
    expect(record.results.map((r) => r.attempt)).toEqual(results.map((r) => r.attempt));
    expect(record).toMatchObject({ succeeded: true, failingFrom: at(20) });
  });
});
