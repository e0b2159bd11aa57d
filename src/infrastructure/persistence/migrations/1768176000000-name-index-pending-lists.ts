import type { MigrationInterface, QueryRunner } from 'typeorm';

/** How large, in kB, a name index's list of entries not yet merged may grow: PostgreSQL's default is 4,096. */
const PENDING_LIST_KB = 256;

const NAME_INDEXES = ['people_first_name_folded_trgm_idx', 'people_last_name_folded_trgm_idx'];

/**
 * A trigram index puts new entries in a pending list, which it merges into the index when the list
 * passes `gin_pending_list_limit`, or at a VACUUM; every name search reads the whole list. Each
 * update of a person that cannot stay on its page (one that changes a name or a chat_id, or finds
 * the page full) adds entries to both name indexes' lists, so under the bot's PATCHes and the
 * weekly import the default 4 MB grew to 500 pages between autovacuums, and a name search then
 * cost the database 6.0–6.8 ms against 4.3–4.6 after the merge. PGlite has no autovacuum: there
 * only the limit ever merged. At 256 kB a list holds at most 32 pages: a search over it costs what
 * it costs over a merged index, and updates stay as fast, each merge being smaller
 * (docs/performance.md). The bulk import keeps the setting: it builds the indexes again from their
 * own definitions.
 */
export class NameIndexPendingLists1768176000000 implements MigrationInterface {
  name = 'NameIndexPendingLists1768176000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const index of NAME_INDEXES) {
      await queryRunner.query(`ALTER INDEX ${index} SET (gin_pending_list_limit = ${PENDING_LIST_KB})`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const index of NAME_INDEXES) {
      await queryRunner.query(`ALTER INDEX ${index} RESET (gin_pending_list_limit)`);
    }
  }
}
