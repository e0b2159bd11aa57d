import type { DataSource } from 'typeorm';
import type { ClaimedDelivery } from '../../application/ports/webhook-store';
import { NO_WAIT_FOR_DISK } from './delivery-outcome-writer';
import { returned } from './returned-rows';
import { secretsOf } from './signing-secrets';

/**
 * Whether delivery `d`'s subscription is enabled, as a filter on each row the due index yields
 * rather than a join: without statistics (a table that grew from nothing since the last ANALYZE)
 * the planner joined and then sorted every pending delivery, 70 ms with 45,000 of them, for each
 * claim; this way a claim reads the few rows at the head of the index whatever the statistics.
 */
const ENABLED_SUBSCRIPTION =
  '(SELECT s.disabled_at IS NULL FROM webhook_subscriptions s WHERE s.id = d.subscription_id)';

/**
 * Leases up to `limit` due deliveries of enabled subscriptions until `leaseUntil`, oldest change
 * first among those due together (as `webhooks enable` leaves them); deliveries other instances
 * are claiming at the same moment are skipped, never waited for.
 */
export async function claimDueDeliveries(
  dataSource: DataSource,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const rows = returned(
    await dataSource.query(
      `WITH ${NO_WAIT_FOR_DISK},
       due AS (
         SELECT d.id FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.next_attempt_at <= $1
           AND (d.lease_until IS NULL OR d.lease_until <= $1)
           AND ${ENABLED_SUBSCRIPTION}
         ORDER BY d.next_attempt_at, d.seq
         LIMIT $3
         FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE webhook_deliveries d SET lease_until = $2
       FROM due, webhook_subscriptions s, no_wait_for_disk
       WHERE d.id = due.id AND s.id = d.subscription_id
       RETURNING d.id, d.subscription_id, d.seq, d.attempts, d.message_id, d.payload, d.failures,
         coalesce(d.requeued_at, d.created_at) AS retrying_since, s.url, s.secret,
         s.previous_secret, s.previous_secret_expires_at, s.failing_since`,
      [now, leaseUntil, limit],
    ),
  );
  return rows.map(
    (row: {
      id: string;
      subscription_id: number;
      seq: string;
      attempts: number;
      message_id: string;
      payload: string;
      failures: number;
      retrying_since: Date;
      url: string;
      secret: string;
      previous_secret: string | null;
      previous_secret_expires_at: Date | null;
      failing_since: Date | null;
    }): ClaimedDelivery => ({
      id: Number(row.id),
      subscriptionId: Number(row.subscription_id),
      seq: Number(row.seq),
      attempts: row.attempts,
      messageId: row.message_id,
      url: row.url,
      payload: row.payload,
      secrets: secretsOf(row, now),
      failures: row.failures,
      retryingSince: row.retrying_since,
      failingSince: row.failing_since,
      leaseUntil,
    }),
  );
}

/** When the next pending delivery of an enabled subscription that no lease holds at `now` falls due. */
export async function nextDueAt(dataSource: DataSource, now: Date): Promise<Date | null> {
  // Along the due index from its start, rather than through every pending delivery: with a
  // backlog of thousands that is the difference between a few rows and a scan of them all.
  const [row] = await dataSource.query(
    `SELECT d.next_attempt_at AS at
       FROM webhook_deliveries d
       WHERE d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= $1)
         AND ${ENABLED_SUBSCRIPTION}
       ORDER BY d.next_attempt_at
       LIMIT 1`,
    [now],
  );
  return row?.at ?? null;
}
