import type { DataSource } from 'typeorm';
import type { ClaimedDelivery, WebhookAttempt } from '../../application/ports/webhook-store';
import { failingSinceSql } from '../../application/webhooks/failing-mark';
import { returned } from './returned-rows';
import { givenUpStatusSql, resendsFailedSql } from './webhook-waiting-sql';

/** The failing mark after a failed attempt that began at `$2` (see failing-mark.ts). */
const FAILED_SINCE = failingSinceSql('failing_since', 'false', '$2::timestamptz');

/**
 * Writes a retry that gave up (rarer than the routine outcomes of delivery-outcome-writer.ts, so
 * alone, in a transaction): its attempt, in any case; the rest only while the lease is still the
 * claim's. With `disable` (a reason) the subscription is disabled at once, and nothing that waits
 * for it is dropped (webhook-waiting-sql.ts): `webhooks enable` sends it. False when the lease was
 * no longer the claim's.
 */
export function writeGivingUp(
  dataSource: DataSource,
  claim: ClaimedDelivery,
  attempt: WebhookAttempt,
  disable: string | null,
): Promise<boolean> {
  return dataSource.transaction(async (manager) => {
    await manager.query(
      `INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, error)
       SELECT id, $2, $3, $4, $5 FROM webhook_deliveries WHERE id = $1`,
      [claim.id, attempt.at, attempt.statusCode, attempt.durationMs, attempt.error],
    );
    const updated = returned(
      await manager.query(
        `UPDATE webhook_deliveries
         SET lease_until = NULL, attempts = attempts + 1, failures = failures + 1,
             status = ${givenUpStatusSql('$3::boolean')}
         WHERE id = $1 AND lease_until = $2
         RETURNING id`,
        [claim.id, claim.leaseUntil, disable !== null],
      ),
    );
    if (updated.length === 0) return false;
    await manager.query(
      `UPDATE webhook_subscriptions SET failing_since = ${FAILED_SINCE}
       WHERE id = $1 AND failing_since IS DISTINCT FROM ${FAILED_SINCE}`,
      [claim.subscriptionId, attempt.at],
    );
    if (disable !== null) {
      const disabled = returned(
        await manager.query(
          `UPDATE webhook_subscriptions SET disabled_at = $2, disabled_reason = $3
           WHERE id = $1 AND disabled_at IS NULL RETURNING id`,
          [claim.subscriptionId, attempt.at, disable],
        ),
      );
      if (disabled.length > 0) await manager.query(resendsFailedSql('$1'), [claim.subscriptionId]);
    }
    return true;
  });
}
