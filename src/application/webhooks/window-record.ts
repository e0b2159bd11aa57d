import type { WindowRecord, WindowResult } from '../ports/webhook-store';
import { countsAsFailure, failingMark } from './failing-mark';

/**
 * What a window's results do to its subscription, as the outcome writer does for retries: the
 * failing mark follows the attempts (failingMark), and a result that gives up with a reason
 * disables the subscription. Its change was never delivered, so it waits, pending, with the rest
 * of the window, for `webhooks enable` (SPEC §7: nothing is skipped, disabled or not).
 */
export function windowRecord(results: WindowResult[]): WindowRecord {
  const attempted = results
    .filter((r) => r.attempt !== null)
    .sort((a, b) => (a.attempt?.at.getTime() ?? 0) - (b.attempt?.at.getTime() ?? 0));
  const { succeeded, failingFrom } = failingMark(
    attempted.flatMap(({ attempt, outcome }) =>
      attempt === null
        ? []
        : [{ at: attempt.at, succeeded: outcome.status === 'delivered', failed: countsAsFailure(outcome) }],
    ),
  );
  const giving = attempted.find(
    (r) => r.outcome.status === 'failed' && r.outcome.disableSubscription !== null,
  );
  const disable =
    giving?.outcome.status === 'failed' &&
    giving.outcome.disableSubscription !== null &&
    giving.attempt !== null
      ? { reason: giving.outcome.disableSubscription, at: giving.attempt.at }
      : null;
  return {
    results:
      disable === null
        ? results
        : results.map((r) =>
            r.outcome.status === 'failed'
              ? {
                  ...r,
                  outcome: {
                    status: 'pending' as const,
                    nextAttemptAt: r.attempt?.at ?? disable.at,
                    countsAsFailure: true,
                  },
                }
              : r,
          ),
    succeeded,
    failingFrom,
    disable,
  };
}
