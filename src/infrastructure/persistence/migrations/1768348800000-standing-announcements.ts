import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Standing (SPEC §10) is computed where it is read; these columns only remember what the calendar
 * has told, as `ending_announced` does for renewal notices:
 * - `memberships.lapse_announced`: the last day in good standing (grace_until, else end_date) for
 *   which `membership.lapsed` was dealt with (told, or passed over as no turn of the calendar);
 *   null: not yet. The partial index holds the ended memberships not dealt with, read by end date.
 *   Memberships already ended are dealt with here: their lapse was no news when this was installed
 *   (the first run clears the mark of any still in grace, which then lapse in their time).
 * - `people.standing_announced`: the standing last told (`person.standing_changed`) or first seen;
 *   null: never seen, so that a new person's first standing is told by person.created alone.
 * Two change types join the feed; person.standing_changed carries fields (`standing`).
 */
export class StandingAnnouncements1768348800000 implements MigrationInterface {
  name = 'StandingAnnouncements1768348800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE memberships ADD COLUMN lapse_announced date');
    await queryRunner.query(
      'UPDATE memberships SET lapse_announced = end_date WHERE end_date < CURRENT_DATE',
    );
    await queryRunner.query(
      `CREATE INDEX memberships_lapse_pending_idx ON memberships (end_date)
        WHERE end_date IS NOT NULL AND lapse_announced IS NULL`,
    );
    await queryRunner.query('ALTER TABLE people ADD COLUMN standing_announced text');
    await queryRunner.query(`
      ALTER TABLE changes DROP CONSTRAINT changes_type_check,
        ADD CONSTRAINT changes_type_check CHECK (type IN ('person.created', 'person.updated',
          'person.erased', 'person.removed', 'person.standing_changed', 'membership.started',
          'membership.ending', 'membership.ended', 'membership.lapsed')),
        DROP CONSTRAINT changes_fields_check,
        ADD CONSTRAINT changes_fields_check
          CHECK ((type IN ('person.updated', 'person.standing_changed')) = (fields IS NOT NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      "DELETE FROM changes WHERE type IN ('person.standing_changed', 'membership.lapsed')",
    );
    await queryRunner.query(`
      ALTER TABLE changes DROP CONSTRAINT changes_type_check,
        ADD CONSTRAINT changes_type_check CHECK (type IN ('person.created', 'person.updated',
          'person.erased', 'person.removed', 'membership.started', 'membership.ending', 'membership.ended')),
        DROP CONSTRAINT changes_fields_check,
        ADD CONSTRAINT changes_fields_check CHECK ((type = 'person.updated') = (fields IS NOT NULL))`);
    await queryRunner.query('ALTER TABLE people DROP COLUMN standing_announced');
    // Dropping the column drops its partial index with it.
    await queryRunner.query('ALTER TABLE memberships DROP COLUMN lapse_announced');
  }
}
