import { randomBytes } from 'node:crypto';
import type { PersonFilter } from '../../../src/domain/person-filter';
import {
  type Database,
  MIGRATIONS,
  migrate,
  openDatabase,
} from '../../../src/infrastructure/persistence/database';
import { personFilterSql } from '../../../src/infrastructure/persistence/person-filter-sql';
import { openTestDatabase, type TestDatabaseTarget, testDatabases, undoTo } from '../../support/databases';
import { openEmptyPglite } from '../../support/pglite-snapshot';

/** An empty database, not migrated: PGlite in memory, or a new schema on PostgreSQL. */
async function openEmpty(
  target: TestDatabaseTarget,
): Promise<{ databases: Database[]; dispose(): Promise<void> }> {
  if (target.url === null) {
    const database = await openEmptyPglite();
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

/**
 * Whether the search can be served by an index: the plan of its condition with sequential scans
 * and plain index scans (which on a handful of rows beat any index by walking the primary key)
 * priced out of reach, leaving the bitmap scans of indexes that match the condition.
 */
async function planOf(database: Database, filter: PersonFilter): Promise<string> {
  const { sql, params } = personFilterSql(filter, { today: '2024-06-15', visibleOnly: true });
  return database.dataSource.transaction(async (manager) => {
    await manager.query('SET LOCAL enable_seqscan = off');
    await manager.query('SET LOCAL enable_indexscan = off');
    const rows: { 'QUERY PLAN': string }[] = await manager.query(
      `EXPLAIN SELECT p.id FROM people p WHERE ${sql}`,
      params,
    );
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

describe.each(testDatabases)('migrate on $name', (target) => {
  it('applies the pending migrations once, then nothing', async () => {
    const empty = await openEmpty(target);
    try {
      const [database] = empty.databases;
      expect(await migrate(database)).toEqual([
        'InitialSchema1767225600000',
        'CaseFoldedColumns1767312000000',
        'ChatIdUniqueAmongMembers1767398400000',
        'ChangeLog1767484800000',
        'Webhooks1767571200000',
        'MemberNumbersAndErasure1767657600000',
        'WebhookSubscriptionCursors1767744000000',
        'RemovedAndEndingChanges1767830400000',
        'ErasedAccounts1767916800000',
        'RenewalNotices1768003200000',
        'NameSearchStatistics1768089600000',
        'NameIndexPendingLists1768176000000',
        'WebhooksKeepWaiting1768262400000',
        'StandingAnnouncements1768348800000',
      ]);
      expect(await migrate(database)).toEqual([]);
    } finally {
      await empty.dispose();
    }
  });

  it('undoes every migration and applies them again, twice, to the same schema', async () => {
    const empty = await openEmpty(target);
    try {
      const [database] = empty.databases;
      await migrate(database);
      for (let round = 0; round < 2; round += 1) {
        for (let i = 0; i < MIGRATIONS.length; i += 1) await database.dataSource.undoLastMigration();
        expect(await migrate(database)).toEqual(MIGRATIONS.map((migration) => migration.name));
      }
      // The directory keeps one id row, whatever was undone and redone.
      expect(await database.dataSource.query('SELECT count(*)::int AS n FROM directory_meta')).toEqual([
        { n: 1 },
      ]);
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
          'CaseFoldedColumns1767312000000',
          'ChatIdUniqueAmongMembers1767398400000',
          'ChangeLog1767484800000',
          'Webhooks1767571200000',
          'MemberNumbersAndErasure1767657600000',
          'WebhookSubscriptionCursors1767744000000',
          'RemovedAndEndingChanges1767830400000',
          'ErasedAccounts1767916800000',
          'RenewalNotices1768003200000',
          'NameSearchStatistics1768089600000',
          'NameIndexPendingLists1768176000000',
          'WebhooksKeepWaiting1768262400000',
          'StandingAnnouncements1768348800000',
        ]);
      } finally {
        await empty.dispose();
      }
    });
  }

  it('creates the indexes the searches and lookups rely on, and the searches can use them', async () => {
    const database = await openTestDatabase(target);
    try {
      const indexes: { indexname: string }[] = await database.dataSource.query(
        'SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname',
      );
      expect(indexes.map((i) => i.indexname)).toEqual(
        expect.arrayContaining([
          'people_member_chat_id_key',
          'people_username_key',
          'people_first_name_folded_trgm_idx',
          'people_last_name_folded_trgm_idx',
          'contacts_email_folded_idx',
          'memberships_person_dates_idx',
          'api_keys_token_hash_key',
          'api_keys_person_created_idx',
          'audit_entries_subject_idx',
        ]),
      );
      // The name substring match from the trigram index on the folded name, the email exact match
      // from the index on the folded email.
      expect(await planOf(database, { lastName: 'σίσυφος' })).toContain('people_last_name_folded_trgm_idx');
      expect(await planOf(database, { firstName: 'STRASSE' })).toContain('people_first_name_folded_trgm_idx');
      expect(await planOf(database, { email: 'ZOË@example.org' })).toContain('contacts_email_folded_idx');
      // Renewals start from the memberships ending by the date.
      expect(await planOf(database, { endingBefore: '2024-07-15' })).toContain('memberships_end_date_idx');
    } finally {
      await database.close();
    }
  });

  it('has ANALYZE keep up to 1,000 most common folded names, gathered as it migrates (100 once undone)', async () => {
    const database = await openTestDatabase(target);
    const { dataSource } = database;
    const mostCommon = async (): Promise<Record<string, number | null>> => {
      const rows: { attname: string; n: number | null }[] = await dataSource.query(
        `SELECT attname, array_length(most_common_vals::text::text[], 1) AS n FROM pg_stats
          WHERE schemaname = current_schema() AND tablename = 'people'
            AND attname IN ('first_name_folded', 'last_name_folded') ORDER BY attname`,
      );
      return Object.fromEntries(rows.map((row) => [row.attname, row.n]));
    };
    try {
      // 400 last names three times each and 150 first names eight times each: more than the
      // default 100 most common values can hold.
      await dataSource.query(
        `INSERT INTO people (first_name, last_name, first_name_folded, last_name_folded)
         SELECT 'first' || (g % 150), 'last' || (g % 400), 'first' || (g % 150), 'last' || (g % 400)
           FROM generate_series(1, 1200) AS g`,
      );
      // Back to before the statistics migration (the ones after it first).
      const undone = await undoTo(database, 'NameSearchStatistics1768089600000');
      await dataSource.query('ANALYZE people');
      expect(await mostCommon()).toEqual({ first_name_folded: 100, last_name_folded: 100 });

      expect(await migrate(database)).toEqual(undone);
      expect(await mostCommon()).toEqual({ first_name_folded: 150, last_name_folded: 400 });
    } finally {
      await database.close();
    }
  });

  it("keeps the name indexes' pending lists to 256 kB (PostgreSQL's default once undone)", async () => {
    const database = await openTestDatabase(target);
    const { dataSource } = database;
    const limits = async (): Promise<Record<string, string[] | null>> => {
      const rows: { name: string; options: string[] | null }[] = await dataSource.query(
        `SELECT c.relname AS name, c.reloptions AS options FROM pg_class c
          WHERE c.oid IN ('people_first_name_folded_trgm_idx'::regclass,
                          'people_last_name_folded_trgm_idx'::regclass)
          ORDER BY c.relname`,
      );
      return Object.fromEntries(rows.map((row) => [row.name, row.options]));
    };
    try {
      expect(await limits()).toEqual({
        people_first_name_folded_trgm_idx: ['gin_pending_list_limit=256'],
        people_last_name_folded_trgm_idx: ['gin_pending_list_limit=256'],
      });
      const undone = await undoTo(database, 'NameIndexPendingLists1768176000000');
      expect(await limits()).toEqual({
        people_first_name_folded_trgm_idx: null,
        people_last_name_folded_trgm_idx: null,
      });
      expect(await migrate(database)).toEqual(undone);
    } finally {
      await database.close();
    }
  });

  it('counts the lapses of memberships already ended as dealt with when it adds lapse_announced', async () => {
    const database = await openTestDatabase(target);
    const { dataSource } = database;
    try {
      await undoTo(database, 'StandingAnnouncements1768348800000');
      const [person] = await dataSource.query(
        "INSERT INTO people (first_name, last_name, first_name_folded, last_name_folded) VALUES ('a', 'b', 'a', 'b') RETURNING id",
      );
      const [club] = await dataSource.query("INSERT INTO clubs (name) VALUES ('Astronomy') RETURNING id");
      await dataSource.query(
        `INSERT INTO memberships (person_id, club_id, start_date, end_date)
         VALUES ($1, $2, '2001-01-01', CURRENT_DATE - 1), ($1, $2, '2001-01-01', CURRENT_DATE), ($1, $2, '2001-01-01', NULL)`,
        [person.id, club.id],
      );
      await migrate(database);
      const rows: { lapse_announced_is_end: boolean | null }[] = await dataSource.query(
        'SELECT lapse_announced = end_date AS lapse_announced_is_end FROM memberships ORDER BY id',
      );
      expect(rows.map((row) => row.lapse_announced_is_end)).toEqual([true, null, null]);
      const [{ standing }] = await dataSource.query('SELECT standing_announced AS standing FROM people');
      expect(standing).toBeNull();
    } finally {
      await database.close();
    }
  });

  it('folds the names and emails of existing people, and clears blank chat_ids, when it adds the folded columns', async () => {
    const database = await openTestDatabase(target);
    const { dataSource } = database;
    try {
      // Back to the schema before the folded columns (and the later migrations), with rows written then.
      for (let i = 1; i < MIGRATIONS.length; i += 1) await dataSource.undoLastMigration();
      const [zoe] = await dataSource.query(
        `INSERT INTO people (first_name, last_name, chat_id, planner_id)
         VALUES ('Zoe\u0308', 'ΣΊΣΥΦΟΣ', '  ', '\u3000') RETURNING id`,
      );
      const [kept] = await dataSource.query(
        `INSERT INTO people (first_name, last_name, chat_id) VALUES ('Max', 'STRASSE', ' x ') RETURNING id`,
      );
      await dataSource.query(
        `INSERT INTO contacts (person_id, kind, value) VALUES ($1, 'email', 'ZOË@Example.ORG'), ($1, 'phone', '+1')`,
        [zoe.id],
      );

      expect(await migrate(database)).toEqual(MIGRATIONS.slice(1).map((migration) => migration.name));

      expect(
        await dataSource.query(
          `SELECT first_name, first_name_folded, last_name_folded, chat_id, planner_id, version
             FROM people WHERE id = ANY($1) ORDER BY id`,
          [[zoe.id, kept.id]],
        ),
      ).toEqual([
        {
          first_name: 'Zoe\u0308',
          first_name_folded: 'zoë',
          last_name_folded: 'σίσυφοσ',
          chat_id: null,
          planner_id: null,
          version: 3,
        },
        {
          first_name: 'Max',
          first_name_folded: 'max',
          last_name_folded: 'strasse',
          chat_id: ' x ',
          planner_id: null,
          version: 1,
        },
      ]);
      expect(
        await dataSource.query('SELECT kind, value_folded FROM contacts WHERE person_id = $1 ORDER BY kind', [
          zoe.id,
        ]),
      ).toEqual([
        { kind: 'email', value_folded: 'zoë@example.org' },
        { kind: 'phone', value_folded: null },
      ]);
    } finally {
      await database.close();
    }
  });
});
