import { randomBytes } from 'node:crypto';
import { type Database, migrate, openDatabase } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, type TestDatabaseTarget, testDatabases } from '../../support/databases';

/** An empty database, not migrated: PGlite in memory, or a new schema on PostgreSQL. */
async function openEmpty(
  target: TestDatabaseTarget,
): Promise<{ databases: Database[]; dispose(): Promise<void> }> {
  if (target.url === null) {
    const database = await openDatabase({ databaseUrl: null });
    return { databases: [database], dispose: () => database.close() };
  }
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const first = await openDatabase({ databaseUrl: target.url, schema });
  const second = await openDatabase({ databaseUrl: target.url, schema });
  return {
    databases: [first, second],
    async dispose() {
      await second.close();
      await first.dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await first.close();
    },
  };
}

describe.each(testDatabases)('migrate on $name', (target) => {
  it('applies the pending migrations once, then nothing', async () => {
    const empty = await openEmpty(target);
    try {
      const [database] = empty.databases;
      expect(await migrate(database)).toEqual([
        'InitialSchema1767225600000',
        'ChatIdUniqueAmongMembers1767398400000',
      ]);
      expect(await migrate(database)).toEqual([]);
    } finally {
      await empty.dispose();
    }
  });

  if (target.name === 'postgres') {
    it('lets instances that start together migrate one after the other', async () => {
      const empty = await openEmpty(target);
      try {
        const results = await Promise.all(empty.databases.map((database) => migrate(database)));
        expect(results.flat()).toEqual([
          'InitialSchema1767225600000',
          'ChatIdUniqueAmongMembers1767398400000',
        ]);
      } finally {
        await empty.dispose();
      }
    });
  }

  it('creates the indexes the searches and lookups rely on', async () => {
    const database = await openTestDatabase(target);
    try {
      const indexes: { indexname: string }[] = await database.dataSource.query(
        'SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname',
      );
      expect(indexes.map((i) => i.indexname)).toEqual(
        expect.arrayContaining([
          'people_member_chat_id_key',
          'people_username_key',
          'people_first_name_trgm_idx',
          'people_last_name_trgm_idx',
          'contacts_email_lower_idx',
          'memberships_person_dates_idx',
          'api_keys_token_hash_key',
          'api_keys_person_created_idx',
          'audit_entries_subject_idx',
        ]),
      );
    } finally {
      await database.close();
    }
  });
});
