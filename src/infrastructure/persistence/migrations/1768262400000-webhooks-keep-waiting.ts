import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Nothing that waits for a webhook subscription is dropped when it is disabled (SPEC §7;
 * docs/decisions.md, "Webhooks"). Before, disabling marked its pending deliveries failed, and
 * `webhooks enable` sent again only those it could tell had failed with the receiver, which a
 * success that began before a failure could hide. Here the rows those rules left:
 * - a delivery of a disabled subscription that is failed and whose change never reached the
 *   receiver (no 2xx among its attempts) waits again, pending, for `webhooks enable`;
 * - a delivery resent by hand (`redeliver`) had its `delivered_at` cleared: it gets back the time
 *   of its last success, so that it is not counted as waiting.
 * And the index of the deliveries that go before their subscription's next window (queued, not
 * failed since): a handful of rows, looked up per subscription at each claim of windows.
 */
export class WebhooksKeepWaiting1768262400000 implements MigrationInterface {
  name = 'WebhooksKeepWaiting1768262400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE webhook_deliveries d
      SET delivered_at = (SELECT max(a.at) FROM webhook_attempts a
                          WHERE a.delivery_id = d.id AND a.status_code BETWEEN 200 AND 299)
      WHERE d.delivered_at IS NULL
        AND EXISTS (SELECT 1 FROM webhook_attempts a
                    WHERE a.delivery_id = d.id AND a.status_code BETWEEN 200 AND 299)`);
    await queryRunner.query(`
      UPDATE webhook_deliveries d SET status = 'pending', lease_until = NULL
      FROM webhook_subscriptions s
      WHERE s.id = d.subscription_id AND s.disabled_at IS NOT NULL
        AND d.status = 'failed' AND d.delivered_at IS NULL`);
    await queryRunner.query(`
      CREATE INDEX webhook_deliveries_queued_idx ON webhook_deliveries (subscription_id, next_attempt_at)
      WHERE status = 'pending' AND failures = 0`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The rows stay as they are: the earlier code sends a pending delivery once enabled, as this does.
    await queryRunner.query('DROP INDEX webhook_deliveries_queued_idx');
  }
}
