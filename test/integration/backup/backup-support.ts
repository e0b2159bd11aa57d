import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BACKUP_SEQUENCES,
  BACKUP_TABLES,
  quoted,
  relationsSql,
  SEQUENCE_KINDS,
  TABLE_KINDS,
} from '../../../src/infrastructure/persistence/backup/backup-format';
import { type Database, openDatabase } from '../../../src/infrastructure/persistence/database';
import type { TestDatabaseTarget } from '../../support/databases';
import { openEmptyPglite } from '../../support/pglite-snapshot';

let files = 0;
const directory = mkdtempSync(join(tmpdir(), 'backup-test-'));
// Each test file has its own copy of this module, and so its own directory, gone after its tests.
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A path in the file's temporary directory, not yet used. */
export function backupPath(name = 'directory.backup'): string {
  files += 1;
  return join(directory, `${files}-${name}`);
}

/** A database with nothing in it, as restore wants: PGlite in memory, or a new PostgreSQL schema. */
export async function openEmptyDatabase(target: TestDatabaseTarget): Promise<Database> {
  if (target.url === null) return openEmptyPglite();
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const database = await openDatabase({ databaseUrl: target.url, schema });
  return {
    ...database,
    async close() {
      try {
        await database.dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await database.close();
      }
    },
  };
}

/**
 * Every row of every table the backup knows, as row_to_json writes it in UTC, in key order, and
 * every sequence's position: what must be the same after a restore.
 */
export async function contentsOf(database: Database): Promise<Record<string, string[]>> {
  return database.dataSource.transaction('REPEATABLE READ', async (manager) => {
    await manager.query("SET LOCAL TimeZone = 'UTC'");
    const present = ((await manager.query(relationsSql(TABLE_KINDS))) as { name: string }[]).map(
      (row) => row.name,
    );
    const contents: Record<string, string[]> = {};
    for (const { name, key } of BACKUP_TABLES.filter((table) => present.includes(table.name))) {
      const rows: { line: string }[] = await manager.query(
        `SELECT row_to_json(t)::text AS line FROM ${quoted(name)} t ORDER BY t.${quoted(key)}`,
      );
      contents[name] = rows.map((row) => row.line);
    }
    const sequences = ((await manager.query(relationsSql(SEQUENCE_KINDS))) as { name: string }[]).map(
      (row) => row.name,
    );
    for (const name of BACKUP_SEQUENCES.filter((sequence) => sequences.includes(sequence))) {
      const [row]: { line: string }[] = await manager.query(
        `SELECT last_value::text || ' ' || is_called::text AS line FROM ${quoted(name)}`,
      );
      contents[`sequence ${name}`] = [row.line];
    }
    return contents;
  });
}

/** The tables of the current schema that any migration makes: none in an empty database. */
export async function directoryTables(database: Database): Promise<string[]> {
  const rows: { name: string }[] = await database.dataSource.query(relationsSql(TABLE_KINDS));
  const listed = BACKUP_TABLES.map((table) => table.name);
  return rows.map((row) => row.name).filter((name) => listed.includes(name));
}
