import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { QueryRunner } from 'typeorm';
import { type Database, unknownMigrations } from '../database';
import {
  BACKUP_FORMAT,
  BACKUP_SEQUENCES,
  BACKUP_TABLES,
  BACKUP_VERSION,
  BackupError,
  type BackupHeader,
  type BackupSequence,
  COLUMNS_SQL,
  MIGRATIONS_TABLE,
  quoted,
  relations,
  SEQUENCE_KINDS,
  TABLE_KINDS,
} from './backup-format';

// Rows fetched from the cursor at a time, and text gathered before a write: memory stays bounded
// whatever the directory's size, and the embedded database's session is never idle for long.
const FETCH_ROWS = 2000;
const CHUNK_CHARACTERS = 256 * 1024;

export interface BackupSummary {
  header: BackupHeader;
  rows: Record<string, number>;
}

/**
 * Writes the whole directory to `out` (backup-format.ts) from one snapshot: a REPEATABLE READ,
 * READ ONLY transaction, so that writers going on meanwhile (the service) are either wholly in the
 * file or wholly out of it — no change without its person, no delivery without its change — and are
 * never blocked on PostgreSQL. On the embedded database the service's queries wait meanwhile: its
 * one session is the backup's until the transaction ends.
 */
export async function writeBackup(database: Database, out: Writable): Promise<BackupSummary> {
  const runner = database.dataSource.createQueryRunner();
  const hash = createHash('sha256');
  let pending = '';
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const flush = async () => {
    hash.update(pending);
    const chunk = pending;
    pending = '';
    await write(chunk);
  };
  const emit = async (line: string) => {
    pending += `${line}\n`;
    if (pending.length >= CHUNK_CHARACTERS) await flush();
  };
  let open = false;
  try {
    await runner.connect();
    await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    open = true;
    // The same instants written the same way from either database; ends with the transaction.
    await runner.query("SET LOCAL TimeZone = 'UTC'");
    const header = await readHeader(database, runner);
    await emit(JSON.stringify(header));
    const tables = await relations(runner, TABLE_KINDS);
    const rows: Record<string, number> = {};
    for (const table of BACKUP_TABLES) {
      if (tables.has(table.name)) rows[table.name] = await writeTable(runner, table, emit);
    }
    // After the snapshot was taken: a sequence is outside any snapshot and only goes up, so
    // read now it is at least where every row in the file left it.
    await emit(JSON.stringify(['sequences', await readSequences(runner)]));
    await runner.query('COMMIT');
    open = false;
    await flush();
    await write(`${JSON.stringify(['end', { rows, sha256: hash.digest('hex') }])}\n`);
    return { header, rows };
  } finally {
    if (open) await runner.query('ROLLBACK').catch(() => undefined);
    await runner.release();
  }
}

async function readHeader(database: Database, runner: QueryRunner): Promise<BackupHeader> {
  const tables = await relations(runner, TABLE_KINDS);
  if (!tables.has(MIGRATIONS_TABLE) || !tables.has('directory_meta')) {
    throw new BackupError('the database holds no directory (it has never been migrated): nothing to back up');
  }
  const applied = names(await runner.query(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`));
  const unknown = unknownMigrations(applied);
  // Its tables may hold what this code does not know to back up.
  if (unknown.length > 0) {
    throw new BackupError(
      `the database's schema is newer than this tool (migration ${unknown[0]}): back it up with the version that runs it`,
    );
  }
  const [meta]: { directory_id: string; server_version: string; now: string }[] = await runner.query(
    `SELECT directory_id, current_setting('server_version') AS server_version,
            to_char(now(), 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS now
       FROM directory_meta`,
  );
  return {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    created_at: meta.now,
    database: database.kind,
    server_version: meta.server_version,
    directory_id: meta.directory_id,
    migrations: applied,
  };
}

async function writeTable(
  runner: QueryRunner,
  table: { name: string; key: string },
  emit: (line: string) => Promise<void>,
): Promise<number> {
  const columns = names(await runner.query(COLUMNS_SQL, [table.name]));
  await emit(JSON.stringify(['table', table.name, columns]));
  // A cursor inside the transaction: the same snapshot, a batch at a time.
  await runner.query(
    `DECLARE backup_rows NO SCROLL CURSOR FOR
       SELECT row_to_json(t)::text AS line FROM ${quoted(table.name)} t ORDER BY t.${quoted(table.key)}`,
  );
  let count = 0;
  for (;;) {
    const batch: { line: string }[] = await runner.query(`FETCH FORWARD ${FETCH_ROWS} FROM backup_rows`);
    for (const { line } of batch) await emit(line);
    count += batch.length;
    if (batch.length < FETCH_ROWS) break;
  }
  await runner.query('CLOSE backup_rows');
  return count;
}

async function readSequences(runner: QueryRunner): Promise<BackupSequence[]> {
  const present = await relations(runner, SEQUENCE_KINDS);
  const sequences: BackupSequence[] = [];
  for (const name of BACKUP_SEQUENCES.filter((sequence) => present.has(sequence))) {
    const [row]: { last_value: string; is_called: boolean }[] = await runner.query(
      `SELECT last_value::text AS last_value, is_called FROM ${quoted(name)}`,
    );
    sequences.push({ name, last_value: row.last_value, is_called: row.is_called });
  }
  return sequences;
}

function names(rows: { name: string }[]): string[] {
  return rows.map((row) => row.name);
}
