import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Keeping the directory current (SPEC §6, §8): the society's own membership number, by which an
 * import names the people it updates, unique when set (its unique index also serves those
 * lookups); and the time a person was erased, after which they are never shown, like an admin.
 */
export class MemberNumbersAndErasure1767657600000 implements MigrationInterface {
  name = 'MemberNumbersAndErasure1767657600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE people
        ADD COLUMN member_number text,
        ADD COLUMN erased_at timestamptz,
        ADD CONSTRAINT people_member_number_key UNIQUE (member_number),
        ADD CONSTRAINT people_member_number_check CHECK (member_number <> '')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Dropping the columns drops their constraint and index with them.
    await queryRunner.query('ALTER TABLE people DROP COLUMN member_number, DROP COLUMN erased_at');
  }
}
