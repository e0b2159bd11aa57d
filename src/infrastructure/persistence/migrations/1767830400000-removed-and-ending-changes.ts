import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two more change types (SPEC §7, §9): `person.removed`, when a person leaves the directory without
 * being erased (made an admin), and `membership.ending`, the renewal notice before a current
 * membership's end date.
 */
export class RemovedAndEndingChanges1767830400000 implements MigrationInterface {
  name = 'RemovedAndEndingChanges1767830400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE changes DROP CONSTRAINT changes_type_check,
        ADD CONSTRAINT changes_type_check CHECK (type IN ('person.created', 'person.updated',
          'person.erased', 'person.removed', 'membership.started', 'membership.ending', 'membership.ended'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("DELETE FROM changes WHERE type IN ('person.removed', 'membership.ending')");
    await queryRunner.query(`
      ALTER TABLE changes DROP CONSTRAINT changes_type_check,
        ADD CONSTRAINT changes_type_check CHECK (type IN ('person.created', 'person.updated',
          'person.erased', 'membership.started', 'membership.ended'))`);
  }
}
