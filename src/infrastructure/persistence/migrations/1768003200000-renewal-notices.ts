import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Renewal notices (SPEC §9): `ending_announced` is the end date for which the calendar last told
 * `membership.ending` of a membership (null: never). A notice is due again when the end date is
 * no longer the one told, so it comes once per membership and end date. The partial index holds
 * the memberships with an end date not told yet, which the calendar job reads by end date.
 * Existing memberships have told nothing: those current and near their end are told at the job's
 * first run, as after any downtime.
 */
export class RenewalNotices1768003200000 implements MigrationInterface {
  name = 'RenewalNotices1768003200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE memberships ADD COLUMN ending_announced date');
    await queryRunner.query(
      `CREATE INDEX memberships_ending_pending_idx ON memberships (end_date)
        WHERE end_date IS NOT NULL AND ending_announced IS DISTINCT FROM end_date`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Dropping the column drops its index with it.
    await queryRunner.query('ALTER TABLE memberships DROP COLUMN ending_announced');
  }
}
