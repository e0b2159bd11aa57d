import {
  BACKUP_SEQUENCES,
  BACKUP_TABLES,
  relationsSql,
  SEQUENCE_KINDS,
  TABLE_KINDS,
} from '../../../src/infrastructure/persistence/backup/backup-format';
import { existsSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { backupPath } from './backup-support';

/**
 * The backup names its tables and sequences (backup-format.ts): a migration that adds one must add
 * it there, or backups would silently leave its rows behind. These fail until it does.
 */
describe.each(testDatabases)('what a backup covers, on $name', (target) => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(() => database?.close());

  const names = async (kinds: string) =>
    ((await database.dataSource.query(relationsSql(kinds))) as { name: string }[]).map((row) => row.name);

  it('knows every table the migrations make', async () => {
    const listed = BACKUP_TABLES.map((table) => table.name);
    const missing = (await names(TABLE_KINDS)).filter((name) => !listed.includes(name));
    expect(missing).toEqual([]);
  });

  it('knows every sequence the migrations make', async () => {
    const missing = (await names(SEQUENCE_KINDS)).filter((name) => !BACKUP_SEQUENCES.includes(name));
    expect(missing).toEqual([]);
  });

  it("orders each table's rows by its primary key", async () => {
    const tables = await names(TABLE_KINDS);
    for (const { name, key } of BACKUP_TABLES.filter((table) => tables.includes(table.name))) {
      const [row]: { key: string }[] = await database.dataSource.query(
        `SELECT string_agg(a.attname, ',') AS key
           FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
          WHERE i.indisprimary AND i.indrelid = (
            SELECT c.oid FROM pg_class c
             WHERE c.relname = $1 AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()))`,
        [name],
      );
      expect(`${name}: ${row.key}`).toBe(`${name}: ${key}`);
    }
  });

  it('refuses to back up a schema newer than its code, and leaves no file', async () => {
    await database.dataSource.query(
      "INSERT INTO migrations (timestamp, name) VALUES (1999999999999, 'Future1999999999999')",
    );
    try {
      const file = backupPath();
      // Refused as every command but migrate --status refuses a newer schema, before anything runs.
      expect(await cli(database, ['backup', file])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: expect.stringMatching(
          /^error: the database's schema is newer than this code: it holds migration Future1999999999999, .*\n$/,
        ),
      });
      expect(existsSync(file)).toBe(false);
      expect(readdirSync(dirname(file)).filter((name) => name.includes('partial'))).toEqual([]);
    } finally {
      await database.dataSource.query("DELETE FROM migrations WHERE name = 'Future1999999999999'");
    }
  });
});
