import type { DeliveryOutcome } from '../ports/webhook-store';

// A subscription's failing mark (`failing_since`): when its present run of failures began, from
// which giving up counts (GIVE_UP_AFTER_MS). Attempts move it in the order they began: the last
// success clears it, the first failure after that success sets it, later failures keep it.
// What a set of attempts says is read in TypeScript (a window's results) and in SQL (a batch of
// retries' outcomes, where only the database knows which were still their claim's); what the mark
// then becomes is decided in SQL alone, against the stored mark. Side by side here;
// test/integration/persistence/rules-in-sql.test.ts holds the two readings equal.

/** A failure that moves the mark: given up, or to be retried for the receiver's fault. */
export function countsAsFailure(outcome: DeliveryOutcome): boolean {
  return outcome.status === 'failed' || (outcome.status === 'pending' && outcome.countsAsFailure);
}

export interface MarkedAttempt {
  /** When the attempt began. */
  at: Date;
  succeeded: boolean;
  /** countsAsFailure of its outcome. */
  failed: boolean;
}

/** What a set of attempts says about the mark. */
export interface FailingMark {
  /** One of them succeeded: the mark becomes `failingFrom`, whatever it was. */
  succeeded: boolean;
  /** The first failure after the last success (of them all when none succeeded); null: none. */
  failingFrom: Date | null;
}

/**
 * Attempts that began at the same moment count in the order given: a window's attempts begin one
 * after another, in its order, even where the clock has not moved between them.
 */
export function failingMark(attempts: MarkedAttempt[]): FailingMark {
  let succeeded = false;
  let failingFrom: Date | null = null;
  const inOrder = [...attempts].sort((a, b) => a.at.getTime() - b.at.getTime());
  for (const attempt of inOrder) {
    if (attempt.succeeded) {
      succeeded = true;
      failingFrom = null;
    } else if (attempt.failed) {
      failingFrom ??= attempt.at;
    }
  }
  return { succeeded, failingFrom };
}

/**
 * failingMark for each subscription, over `attempts`, a relation of (subscription_id, at,
 * succeeded, failed): rows of (subscription_id, succeeded, failing_from). A relation has no order
 * of its own: a failure that began at the very moment of the last success does not count.
 */
export function failingMarksSql(attempts: string): string {
  return `SELECT subscription_id, bool_or(succeeded) AS succeeded,
      min(at) FILTER (WHERE failed AND (last_success IS NULL OR at > last_success)) AS failing_from
    FROM (
      SELECT subscription_id, at, succeeded, failed,
        max(at) FILTER (WHERE succeeded) OVER (PARTITION BY subscription_id) AS last_success
      FROM ${attempts}
    ) o
    GROUP BY subscription_id`;
}

/**
 * What the stored mark `current` becomes after attempts whose FailingMark is `succeeded` and
 * `failingFrom` (SQL expressions): after a success, the first failure since (or none); otherwise
 * an older mark stays, and without one the first failure sets it.
 */
export function failingSinceSql(current: string, succeeded: string, failingFrom: string): string {
  return `CASE WHEN ${succeeded} THEN ${failingFrom} ELSE coalesce(${current}, ${failingFrom}) END`;
}
