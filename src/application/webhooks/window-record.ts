import type { DeliveryOutcome, WindowRecord, WindowResult } from '../ports/webhook-store';

/**
 * What a window's results do to its subscription, as the outcome writer does for retries: the
 * failing mark follows the attempts in the order they began (cleared by the last success, set by
 * the first failure after it), and a result that gives up with a reason disables the
 * subscription, whereupon nothing of the window is left pending.
 */
export function windowRecord(results: WindowResult[]): WindowRecord {
  const attempted = results
    .filter((r) => r.attempt !== null)
    .sort((a, b) => (a.attempt?.at.getTime() ?? 0) - (b.attempt?.at.getTime() ?? 0));
  let succeeded = false;
  let failingFrom: Date | null = null;
  for (const { attempt, outcome } of attempted) {
    if (attempt === null) continue;
    if (outcome.status === 'delivered') {
      succeeded = true;
      failingFrom = null;
    } else if (countsAsFailure(outcome)) {
      failingFrom ??= attempt.at;
    }
  }
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
            r.outcome.status === 'pending'
              ? { ...r, outcome: { status: 'failed' as const, disableSubscription: null } }
              : r,
          ),
    succeeded,
    failingFrom,
    disable,
  };
}

function countsAsFailure(outcome: DeliveryOutcome): boolean {
  return outcome.status === 'failed' || (outcome.status === 'pending' && outcome.countsAsFailure);
}
