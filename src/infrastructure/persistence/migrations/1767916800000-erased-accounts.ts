import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An erased person keeps no account (SPEC §8): no username, password hash, permissions or key
 * names, so that nothing can enable it again. Erasures made before this only disabled the account:
 * they are finished here, and a check holds every later one to it.
 *
 * Erased means gone: `directory_meta` counts the erasures and those whose purge (the rewrite of
 * what held their values, see sql-erasure-purge.ts) has finished, so that the retention job
 * catches up one that did not. Erasures made before this were never purged: counted as one.
 */
export class ErasedAccounts1767916800000 implements MigrationInterface {
  name = 'ErasedAccounts1767916800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE api_keys SET name = NULL, revoked_at = coalesce(revoked_at, now())
       WHERE person_id IN (SELECT id FROM people WHERE erased_at IS NOT NULL)`);
    await queryRunner.query(`
      UPDATE people SET username = NULL, password_hash = NULL, permissions = '{}', disabled = true
       WHERE erased_at IS NOT NULL AND username IS NOT NULL`);
    await queryRunner.query(`
      ALTER TABLE people ADD CONSTRAINT people_erased_credentials_check
        CHECK (erased_at IS NULL OR (username IS NULL AND permissions = '{}'))`);
    await queryRunner.query(`
      ALTER TABLE directory_meta
        ADD COLUMN erasures bigint NOT NULL DEFAULT 0,
        ADD COLUMN erasures_purged bigint NOT NULL DEFAULT 0`);
    await queryRunner.query(
      'UPDATE directory_meta SET erasures = 1 WHERE EXISTS (SELECT 1 FROM people WHERE erased_at IS NOT NULL)',
    );
  }

  /** The credentials taken away stay gone. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE directory_meta DROP COLUMN erasures, DROP COLUMN erasures_purged');
    await queryRunner.query('ALTER TABLE people DROP CONSTRAINT people_erased_credentials_check');
  }
}
