import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * chat_id is unique among members only, the people the API shows. Unique across everyone, a PATCH
 * answered 409 for a chat_id that only a hidden admin held, and so told a write key that some
 * hidden person had it. The partial index still serves the members' chat_id lookups, which always
 * ask for `role = 'member'`; it leaves out people without a chat_id, so that it is no index over
 * every member that the planner would walk for other searches.
 */
export class ChatIdUniqueAmongMembers1767398400000 implements MigrationInterface {
  name = 'ChatIdUniqueAmongMembers1767398400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      "CREATE UNIQUE INDEX people_member_chat_id_key ON people (chat_id) WHERE role = 'member' AND chat_id IS NOT NULL",
    );
    await queryRunner.query('ALTER TABLE people DROP CONSTRAINT people_chat_id_key');
  }

  /** Fails, changing nothing, once an admin and a member share a chat_id. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE people ADD CONSTRAINT people_chat_id_key UNIQUE (chat_id)');
    await queryRunner.query('DROP INDEX people_member_chat_id_key');
  }
}
