import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Renewal notices (SPEC §9): `ending_announced` is the end date for which the calendar last told
 * `membership.ending` of a membership (null: never). A notice is due again when the end date is
 * no longer the one told, so it comes once per membership and end date. The partial index holds
 * the memberships with an end date not told yet, which the calendar job reads by end date.
 * Existing memberships have told nothing: those current and near their end are told at the job's
 * first run, as after any downtime. The ending_before filter finds its candidates by end date
 * through `memberships_end_date_idx`, which holds what it then needs (no table rows are read).
 */
export class RenewalNotices1768003200000 implements MigrationInterface {
  name = 'RenewalNotices1768003200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE memberships ADD COLUMN ending_announced date');
    await queryRunner.query(
      `CREATE INDEX memberships_ending_pending_idx ON memberships (end_date)
        WHERE end_date IS NOT NULL AND ending_announced IS DISTINCT FROM end_date`,
    );
    await queryRunner.query(
      'CREATE INDEX memberships_end_date_idx ON memberships (end_date) INCLUDE (person_id, start_date)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX memberships_end_date_idx');
    // Dropping the column drops its partial index with it.
    await queryRunner.query('ALTER TABLE memberships DROP COLUMN ending_announced');
  }
}
