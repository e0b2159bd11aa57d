import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscriptions follow the change log by their own cursor (docs/decisions.md, "Webhooks"): a
 * change becomes a delivery row once it has been sent, no longer when it is committed. Each
 * subscription starts where the dispatcher had got to (or later, for one added after that point):
 * the deliveries the dispatcher had queued stay in `webhook_deliveries` and are sent from there.
 */
export class WebhookSubscriptionCursors1767744000000 implements MigrationInterface {
  name = 'WebhookSubscriptionCursors1767744000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhook_subscriptions
        ADD COLUMN sent_seq bigint,
        ADD COLUMN lease_until timestamptz`);
    await queryRunner.query(`
      UPDATE webhook_subscriptions
      SET sent_seq = greatest(after_seq, (SELECT last_seq FROM webhook_dispatcher WHERE id = 1))`);
    await queryRunner.query(`
      ALTER TABLE webhook_subscriptions
        ALTER COLUMN sent_seq SET NOT NULL,
        DROP COLUMN after_seq`);
    await queryRunner.query('DROP TABLE webhook_dispatcher');
    // The webhook-id is made from the directory, the subscription and the seq, which the key on
    // (subscription_id, seq) already holds unique: this index was one more entry per row version.
    await queryRunner.query(
      'ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_message_id_key',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_message_id_key UNIQUE (message_id)',
    );
    await queryRunner.query(`
      CREATE TABLE webhook_dispatcher (
        id integer NOT NULL DEFAULT 1,
        last_seq bigint NOT NULL,
        CONSTRAINT webhook_dispatcher_pkey PRIMARY KEY (id),
        CONSTRAINT webhook_dispatcher_one_row_check CHECK (id = 1)
      )`);
    // The dispatcher goes on from the subscription furthest behind: nothing is skipped (changes
    // already sent to some may be queued again for them, and skipped by the unique key).
    await queryRunner.query(`
      INSERT INTO webhook_dispatcher (id, last_seq)
      VALUES (1, coalesce((SELECT min(sent_seq) FROM webhook_subscriptions WHERE disabled_at IS NULL),
                          (SELECT coalesce(max(seq), 0) FROM changes)))`);
    await queryRunner.query('ALTER TABLE webhook_subscriptions ADD COLUMN after_seq bigint');
    await queryRunner.query('UPDATE webhook_subscriptions SET after_seq = sent_seq');
    await queryRunner.query(`
      ALTER TABLE webhook_subscriptions
        ALTER COLUMN after_seq SET NOT NULL,
        DROP COLUMN lease_until,
        DROP COLUMN sent_seq`);
  }
}
