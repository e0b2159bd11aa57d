import type { DataSource } from 'typeorm';
import type { ClaimedDelivery, DeliveryOutcome, WebhookAttempt } from '../../application/ports/webhook-store';
import { countsAsFailure, failingMarksSql, failingSinceSql } from '../../application/webhooks/failing-mark';
import { GroupCommit } from '../persistence/group-commit';

/** The usual ends of an attempt: delivered, or due again. Giving up is rarer and written alone. */
export type RoutineOutcome = Exclude<DeliveryOutcome, { status: 'failed' }>;

export interface FinishedAttempt {
  claim: ClaimedDelivery;
  attempt: WebhookAttempt;
  outcome: RoutineOutcome;
}

const MAX_BATCH = 256;

/**
 * A CTE that lets the statement's COMMIT return before its WAL reaches the disk (PostgreSQL's
 * `synchronous_commit = off`, for this transaction only). For the queue's bookkeeping, claims and
 * outcomes: should PostgreSQL itself crash, at most the last fraction of a second of them is lost,
 * which the queue already survives (a delivery whose claim or outcome was not written is sent
 * again, with the same webhook-id, as when the database goes away mid-send), and under load each
 * of them no longer waits for, and adds to, the disk flushes that PATCHes wait for.
 */
export const NO_WAIT_FOR_DISK = "no_wait_for_disk AS (SELECT set_config('synchronous_commit', 'off', true))";

/**
 * Records attempts and their outcomes, many in one statement. Every attempt is inserted (it
 * happened, whoever holds the lease now); a delivery's outcome is written only while the lease
 * is still the claim's. The subscription's `failing_since` follows the attempts whose outcome was
 * written (see failing-mark.ts).
 */
const RECORD_SQL = `
  WITH ${NO_WAIT_FOR_DISK},
  f AS (
    SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::int[], $5::timestamptz[],
                         $6::timestamptz[], $7::int[], $8::int[], $9::text[])
      AS f(id, lease_until, status, failure, next_attempt_at, at, status_code, duration_ms, error)
  ),
  d AS (
    UPDATE webhook_deliveries w
    SET lease_until = NULL, attempts = w.attempts + 1, status = f.status,
        failures = w.failures + f.failure, next_attempt_at = coalesce(f.next_attempt_at, w.next_attempt_at),
        delivered_at = CASE WHEN f.status = 'delivered' THEN f.at ELSE w.delivered_at END
    FROM f
    WHERE w.id = f.id AND w.lease_until = f.lease_until
    RETURNING w.id, w.subscription_id
  ),
  a AS (
    INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, error)
    SELECT f.id, f.at, f.status_code, f.duration_ms, f.error FROM f
    WHERE EXISTS (SELECT 1 FROM webhook_deliveries w WHERE w.id = f.id)
    ORDER BY f.at
  ),
  o AS (
    SELECT d.subscription_id, f.at, f.status = 'delivered' AS succeeded, f.failure = 1 AS failed
    FROM d JOIN f ON f.id = d.id
  ),
  h AS (${failingMarksSql('o')}),
  n AS (
    SELECT s.id, ${failingSinceSql('s.failing_since', 'h.succeeded', 'h.failing_from')} AS failing_since
    FROM h JOIN webhook_subscriptions s ON s.id = h.subscription_id
    WHERE h.succeeded OR h.failing_from IS NOT NULL
  ),
  s AS (
    UPDATE webhook_subscriptions s SET failing_since = n.failing_since
    FROM n WHERE s.id = n.id AND s.failing_since IS DISTINCT FROM n.failing_since
  )
  SELECT id FROM d, no_wait_for_disk`;

/** The ids among `finished` whose outcome was written (their lease was still theirs). */
async function record(dataSource: DataSource, finished: FinishedAttempt[]): Promise<Set<string>> {
  const rows: { id: string }[] = await dataSource.query(RECORD_SQL, [
    finished.map((f) => f.claim.id),
    finished.map((f) => f.claim.leaseUntil),
    finished.map((f) => f.outcome.status),
    finished.map((f) => (countsAsFailure(f.outcome) ? 1 : 0)),
    finished.map((f) => (f.outcome.status === 'pending' ? f.outcome.nextAttemptAt : null)),
    finished.map((f) => f.attempt.at),
    finished.map((f) => f.attempt.statusCode),
    finished.map((f) => f.attempt.durationMs),
    finished.map((f) => f.attempt.error),
  ]);
  return new Set(rows.map((row) => String(row.id)));
}

/**
 * Writes the outcomes of attempts as they end, one statement at a time: those that end while a
 * statement runs go together in the next one (a group commit, as for PATCH). Under load a
 * delivery then costs the database a share of one statement and one COMMIT rather than its own.
 * Should a statement of several fail (a subscription removed meanwhile), each is written again
 * alone, so that one cannot fail the others.
 */
export class DeliveryOutcomeWriter {
  private readonly commits: GroupCommit<FinishedAttempt, boolean>;

  constructor(dataSource: DataSource) {
    this.commits = new GroupCommit(
      async (finished) => {
        const written = await record(dataSource, finished);
        return finished.map((f) => written.has(String(f.claim.id)));
      },
      {
        maxBatch: MAX_BATCH,
        // By id, the order in which removing a subscription locks its deliveries: no deadlock.
        order: (a, b) => a.claim.id - b.claim.id,
      },
    );
  }

  /** False when the lease was no longer the claim's: only the attempt was recorded. */
  write(finished: FinishedAttempt): Promise<boolean> {
    return this.commits.write(finished);
  }
}
