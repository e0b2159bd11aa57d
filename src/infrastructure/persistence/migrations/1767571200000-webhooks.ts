import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (SPEC §7): subscriptions, one delivery per change and subscription, every attempt, and
 * the dispatcher's place in the change log. The queue is these tables (docs/decisions.md,
 * "Webhooks"): a delivery is due when it is pending, its `next_attempt_at` has come and no
 * instance holds a lease on it (`lease_until` in the future).
 */
export class Webhooks1767571200000 implements MigrationInterface {
  name = 'Webhooks1767571200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_subscriptions (
        id serial NOT NULL,
        url text NOT NULL,
        events text[],
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        after_seq bigint NOT NULL,
        failing_since timestamptz,
        disabled_at timestamptz,
        disabled_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_subscriptions_pkey PRIMARY KEY (id),
        CONSTRAINT webhook_subscriptions_previous_secret_check
          CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))
      )`);

    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id bigserial NOT NULL,
        subscription_id integer NOT NULL,
        seq bigint NOT NULL,
        message_id text NOT NULL,
        type text NOT NULL,
        payload text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        failures integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_until timestamptz,
        created_at timestamptz NOT NULL,
        requeued_at timestamptz,
        delivered_at timestamptz,
        CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
        CONSTRAINT webhook_deliveries_message_id_key UNIQUE (message_id),
        CONSTRAINT webhook_deliveries_subscription_seq_key UNIQUE (subscription_id, seq),
        CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
        CONSTRAINT webhook_deliveries_subscription_id_fkey FOREIGN KEY (subscription_id)
          REFERENCES webhook_subscriptions (id) ON DELETE CASCADE
      )`);
    // The worker's one question: which pending deliveries are due, earliest first.
    await queryRunner.query(
      "CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'",
    );

    await queryRunner.query(`
      CREATE TABLE webhook_attempts (
        id bigserial NOT NULL,
        delivery_id bigint NOT NULL,
        at timestamptz NOT NULL,
        status_code integer,
        duration_ms integer NOT NULL,
        error text,
        CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id),
        CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id)
          REFERENCES webhook_deliveries (id) ON DELETE CASCADE
      )`);
    await queryRunner.query(
      'CREATE INDEX webhook_attempts_delivery_id_idx ON webhook_attempts (delivery_id)',
    );

    // One row: the last change the dispatcher turned into deliveries. Its row lock is what makes
    // the dispatcher single-flight across instances.
    await queryRunner.query(`
      CREATE TABLE webhook_dispatcher (
        id integer NOT NULL DEFAULT 1,
        last_seq bigint NOT NULL,
        CONSTRAINT webhook_dispatcher_pkey PRIMARY KEY (id),
        CONSTRAINT webhook_dispatcher_one_row_check CHECK (id = 1)
      )`);
    // Changes committed before webhooks existed are nobody's to send.
    await queryRunner.query(
      'INSERT INTO webhook_dispatcher (id, last_seq) VALUES (1, (SELECT coalesce(max(seq), 0) FROM changes))',
    );

    // Wakes every instance's dispatcher (LISTEN, PostgreSQL) when changes commit: a notification
    // raised in a transaction is delivered at its COMMIT, once per transaction however many rows.
    await queryRunner.query(`
      CREATE FUNCTION notify_directory_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('directory_changes', '');
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER changes_notify AFTER INSERT ON changes
      FOR EACH STATEMENT EXECUTE FUNCTION notify_directory_changes()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER changes_notify ON changes');
    await queryRunner.query('DROP FUNCTION notify_directory_changes()');
    await queryRunner.query('DROP TABLE webhook_dispatcher');
    await queryRunner.query('DROP TABLE webhook_attempts');
    await queryRunner.query('DROP TABLE webhook_deliveries');
    await queryRunner.query('DROP TABLE webhook_subscriptions');
  }
}
