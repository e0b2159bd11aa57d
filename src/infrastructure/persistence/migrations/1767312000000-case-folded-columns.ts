import type { MigrationInterface, QueryRunner } from 'typeorm';
import { foldCase } from '../../../domain/text';

const BATCH_SIZE = 5000;

/**
 * Case-insensitive matching is Unicode full case folding (SPEC §1), which PostgreSQL before 18
 * cannot compute: lower() keeps ß and tells final sigma from sigma. So the service folds in
 * JavaScript (src/domain/text.ts) and stores the result beside the text, where the indexes are:
 * trigram indexes on the folded names (a substring search is a LIKE on them) and a b-tree on the
 * folded value of email contacts. Existing rows are folded here, in JavaScript too.
 *
 * It also clears chat_ids and planner_ids of white space only, which SPEC §1 says are "not set"
 * and which were stored as given before.
 */
export class CaseFoldedColumns1767312000000 implements MigrationInterface {
  name = 'CaseFoldedColumns1767312000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE people ADD COLUMN first_name_folded text, ADD COLUMN last_name_folded text',
    );
    await queryRunner.query('ALTER TABLE contacts ADD COLUMN value_folded text');
    await foldPeople(queryRunner);
    await foldEmails(queryRunner);
    await clearBlankIdentifiers(queryRunner);

    await queryRunner.query(
      'ALTER TABLE people ALTER COLUMN first_name_folded SET NOT NULL, ALTER COLUMN last_name_folded SET NOT NULL',
    );
    // Every writer of contacts must fold emails; one that forgot would fail here, not search wrong.
    await queryRunner.query(
      "ALTER TABLE contacts ADD CONSTRAINT contacts_value_folded_check CHECK ((kind = 'email') = (value_folded IS NOT NULL))",
    );
    await queryRunner.query(
      'CREATE INDEX people_first_name_folded_trgm_idx ON people USING gin (first_name_folded gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX people_last_name_folded_trgm_idx ON people USING gin (last_name_folded gin_trgm_ops)',
    );
    await queryRunner.query(
      "CREATE INDEX contacts_email_folded_idx ON contacts (value_folded) WHERE kind = 'email'",
    );
    // The searches no longer read these.
    await queryRunner.query('DROP INDEX people_first_name_trgm_idx');
    await queryRunner.query('DROP INDEX people_last_name_trgm_idx');
    await queryRunner.query('DROP INDEX contacts_email_lower_idx');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX people_first_name_trgm_idx ON people USING gin (first_name gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX people_last_name_trgm_idx ON people USING gin (last_name gin_trgm_ops)',
    );
    await queryRunner.query(
      "CREATE INDEX contacts_email_lower_idx ON contacts (lower(value)) WHERE kind = 'email'",
    );
    // Dropping the columns drops their indexes and the check with them.
    await queryRunner.query('ALTER TABLE contacts DROP COLUMN value_folded');
    await queryRunner.query('ALTER TABLE people DROP COLUMN first_name_folded, DROP COLUMN last_name_folded');
  }
}

async function foldPeople(queryRunner: QueryRunner): Promise<void> {
  for (let after = 0; ; ) {
    const rows: { id: number; first_name: string; last_name: string }[] = await queryRunner.query(
      'SELECT id, first_name, last_name FROM people WHERE id > $1 ORDER BY id LIMIT $2',
      [after, BATCH_SIZE],
    );
    if (rows.length === 0) return;
    await queryRunner.query(
      `UPDATE people p SET first_name_folded = v.first, last_name_folded = v.last
         FROM unnest($1::int[], $2::text[], $3::text[]) AS v(id, first, last) WHERE p.id = v.id`,
      [
        rows.map((r) => r.id),
        rows.map((r) => foldCase(r.first_name)),
        rows.map((r) => foldCase(r.last_name)),
      ],
    );
    after = rows[rows.length - 1].id;
  }
}

async function foldEmails(queryRunner: QueryRunner): Promise<void> {
  for (let after = 0; ; ) {
    const rows: { id: number; value: string }[] = await queryRunner.query(
      "SELECT id, value FROM contacts WHERE kind = 'email' AND id > $1 ORDER BY id LIMIT $2",
      [after, BATCH_SIZE],
    );
    if (rows.length === 0) return;
    await queryRunner.query(
      `UPDATE contacts c SET value_folded = v.folded
         FROM unnest($1::int[], $2::text[]) AS v(id, folded) WHERE c.id = v.id`,
      [rows.map((r) => r.id), rows.map((r) => foldCase(r.value))],
    );
    after = rows[rows.length - 1].id;
  }
}

/** White space as JavaScript's trim() knows it, which PostgreSQL's btrim() does not. */
async function clearBlankIdentifiers(queryRunner: QueryRunner): Promise<void> {
  for (const column of ['chat_id', 'planner_id']) {
    // Few rows: only those whose value has no character other than Unicode white space.
    const rows: { id: number; value: string }[] = await queryRunner.query(
      `SELECT id, ${column} AS value FROM people WHERE ${column} !~ '[^[:space:]\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]'`,
    );
    const blank = rows.filter((row) => row.value.trim() === '').map((row) => row.id);
    if (blank.length === 0) continue;
    await queryRunner.query(
      `UPDATE people SET ${column} = NULL, version = version + 1, updated_at = now() WHERE id = ANY($1::int[])`,
      [blank],
    );
  }
}
