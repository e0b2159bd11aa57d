import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change feed (SPEC §7). `changes` is an outbox: each transaction that changes people writes
 * its rows there just before it commits, drawing `seq` from `changes_seq` under an advisory lock
 * (see SqlUnitOfWork), so that seq order is commit order and a reader following `seq > cursor`
 * never skips a change committed late. No foreign key to people: a change outlives an erased
 * person's data, and the feed must say the person is gone.
 *
 * `directory_meta` holds, in its one row, the directory's id (cursors name it, so a cursor from
 * another directory is refused) and the highest seq retention has pruned (older cursors: 410).
 *
 * `start_announced` / `end_announced` say the calendar has dealt with a membership becoming
 * current / stopping being current; `written_at` says when its dates were last written. A
 * transition on or before the day it was written (in DIRECTORY_TIMEZONE, which only the service
 * knows) was no turn of the calendar: the writer's own change told it (person.created or
 * person.updated), and the calendar job marks it without a change of its own. Existing
 * memberships count as written now: the feed begins with this migration.
 */
export class ChangeLog1767484800000 implements MigrationInterface {
  name = 'ChangeLog1767484800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SEQUENCE changes_seq AS bigint');
    await queryRunner.query(`
      CREATE TABLE changes (
        seq bigint NOT NULL,
        at timestamptz NOT NULL DEFAULT now(),
        type text NOT NULL,
        person_id integer NOT NULL,
        fields text[],
        by_key_id integer,
        CONSTRAINT changes_pkey PRIMARY KEY (seq),
        CONSTRAINT changes_type_check CHECK (type IN
          ('person.created', 'person.updated', 'person.erased', 'membership.started', 'membership.ended')),
        CONSTRAINT changes_fields_check CHECK ((type = 'person.updated') = (fields IS NOT NULL))
      )`);
    // Retention finds the changes older than its limit; export-data finds a person's changes.
    await queryRunner.query('CREATE INDEX changes_at_idx ON changes (at)');
    await queryRunner.query('CREATE INDEX changes_person_id_idx ON changes (person_id)');

    await queryRunner.query(`
      CREATE TABLE directory_meta (
        one boolean NOT NULL DEFAULT true,
        directory_id uuid NOT NULL,
        changes_pruned_through bigint NOT NULL DEFAULT 0,
        CONSTRAINT directory_meta_pkey PRIMARY KEY (one),
        CONSTRAINT directory_meta_one_check CHECK (one)
      )`);
    await queryRunner.query('INSERT INTO directory_meta (directory_id) VALUES (gen_random_uuid())');

    await queryRunner.query(`
      ALTER TABLE memberships
        ADD COLUMN start_announced boolean NOT NULL DEFAULT false,
        ADD COLUMN end_announced boolean NOT NULL DEFAULT false,
        ADD COLUMN written_at timestamptz NOT NULL DEFAULT now()`);
    // The calendar job looks only at what it has not announced yet: small partial indexes.
    await queryRunner.query(
      'CREATE INDEX memberships_start_pending_idx ON memberships (start_date) WHERE NOT start_announced',
    );
    await queryRunner.query(
      'CREATE INDEX memberships_end_pending_idx ON memberships (end_date) WHERE NOT end_announced AND end_date IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Dropping the columns drops their indexes with them.
    await queryRunner.query(
      'ALTER TABLE memberships DROP COLUMN start_announced, DROP COLUMN end_announced, DROP COLUMN written_at',
    );
    await queryRunner.query('DROP TABLE directory_meta');
    await queryRunner.query('DROP TABLE changes');
    await queryRunner.query('DROP SEQUENCE changes_seq');
  }
}
