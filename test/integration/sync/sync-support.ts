import { readFileSync } from 'node:fs';
import type { PersonFileRecord } from '../../../src/person-file/person-file-record';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { cli } from '../cli/cli-harness';
import { tempFile, tempPath } from '../cli/import-files';

/** A record of the export file, as the tests edit it. */
export type FileRecord = PersonFileRecord;

/** What `export` writes now, as records. */
export async function exportRecords(database: Database): Promise<FileRecord[]> {
  const path = tempPath('export.json');
  const result = await cli(database, ['export', path]);
  if (result.code !== 0) throw new Error(result.stderr);
  return JSON.parse(readFileSync(path, 'utf8')) as FileRecord[];
}

/** Runs `import` on these records (written to a new file) with the given options. */
export function importRecords(database: Database, records: unknown[], ...options: string[]) {
  return cli(database, ['import', tempFile(records), ...options]);
}

/**
 * Every row of every table the import, the erasure and the feed write: two snapshots are equal
 * only when nothing at all was written in between.
 */
export async function snapshot(database: Database): Promise<Record<string, unknown[]>> {
  const tables = ['people', 'contacts', 'memberships', 'clubs', 'audit_entries', 'api_keys', 'changes'];
  const result: Record<string, unknown[]> = {};
  for (const table of tables) {
    result[table] = await database.dataSource.query(`SELECT * FROM ${table} ORDER BY 1`);
  }
  const [{ last_value }] = await database.dataSource.query('SELECT last_value FROM changes_seq');
  result.sequences = [last_value];
  return result;
}

/** The record of one person, for a test to change. */
export function recordOf(records: FileRecord[], id: number): FileRecord {
  const record = records.find((r) => r.id === id);
  if (record === undefined) throw new Error(`person ${id} is not in the export`);
  return record;
}
