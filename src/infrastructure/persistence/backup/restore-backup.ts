import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { type DataSource, MigrationExecutor, type QueryRunner } from 'typeorm';
import type { Migration } from 'typeorm/migration/Migration';
import { type Database, MIGRATION_LOCK_KEY, unknownMigrations } from '../database';
import {
  BACKUP_FORMAT,
  BACKUP_TABLES,
  BACKUP_VERSION,
  type BackupEnd,
  BackupError,
  type BackupHeader,
  type BackupSequence,
  COLUMNS_SQL,
  quoted,
  relations,
  SEQUENCE_KINDS,
  TABLE_KINDS,
} from './backup-format';
import { type HeldWebhook, holdWebhooks } from './hold-webhooks';

// Rows sent to the database in one statement: few round trips, and messages of a few megabytes
// at most (the embedded database takes one statement's rows into memory at once).
const BATCH_ROWS = 1000;
const BATCH_CHARACTERS = 4 * 1024 * 1024;

export interface RestoreSummary {
  header: BackupHeader;
  rows: Record<string, number>;
  /** Migrations of this code that the backup predates, applied once it was loaded. */
  migrated: string[];
  /** Every webhook subscription, each now disabled until `webhooks enable`. */
  webhooks: HeldWebhook[];
}

/** The file's lines in order, each counted and (until the last) hashed as backup() hashed them. */
class BackupLines {
  private readonly lines: AsyncIterator<string>;
  private readonly hash = createHash('sha256');
  number = 0;

  constructor(input: Readable) {
    this.lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
  }

  /** The next line, or null at the end of the file. */
  async next(): Promise<string | null> {
    const { value, done } = await this.lines.next();
    if (done) return null;
    this.number += 1;
    return value;
  }

  /** Hashes a line once it is known not to be the last. */
  count(line: string): void {
    this.hash.update(`${line}\n`);
  }

  digest(): string {
    return this.hash.digest('hex');
  }

  close(): void {
    void this.lines.return?.();
  }
}

/**
 * Reads and checks a backup's first line without touching any database: the command line calls
 * this before it opens (and so creates) DATA_DIR.
 */
export async function readBackupHeader(input: Readable): Promise<BackupHeader> {
  const lines = new BackupLines(input);
  try {
    return parseHeader(await lines.next());
  } finally {
    lines.close();
    input.destroy();
  }
}

function parseHeader(line: string | null): BackupHeader {
  const notBackup = new BackupError(
    'it is not a backup made by `backup` (its first line is no backup header)',
  );
  let header: Partial<BackupHeader>;
  try {
    header = JSON.parse(line ?? '');
  } catch {
    throw notBackup;
  }
  if (typeof header !== 'object' || header === null || header.format !== BACKUP_FORMAT) throw notBackup;
  if (!Number.isInteger(header.version) || (header.version as number) < 1) throw notBackup;
  if ((header.version as number) > BACKUP_VERSION) {
    throw new BackupError(
      `it is a backup of format version ${header.version}, newer than this tool reads (${BACKUP_VERSION}): restore it with the version that made it, or a newer one`,
    );
  }
  const { migrations } = header;
  if (!Array.isArray(migrations) || migrations.some((name) => typeof name !== 'string')) throw notBackup;
  const [unknown] = unknownMigrations(migrations);
  if (unknown !== undefined) {
    throw new BackupError(
      `it was made by a newer version of the directory (its migration ${unknown} is unknown here): restore it with that version or a newer one`,
    );
  }
  return header as BackupHeader;
}

/** Runs only the migrations a backup was made at, so that its rows fit the tables as they were. */
class MigrationsOfBackup extends MigrationExecutor {
  constructor(
    dataSource: DataSource,
    queryRunner: QueryRunner,
    private readonly names: ReadonlySet<string>,
  ) {
    super(dataSource, queryRunner);
  }

  protected override getMigrations(): Migration[] {
    return super.getMigrations().filter((migration) => this.names.has(migration.name));
  }
}

/**
 * Loads a backup (backup-format.ts) into a database holding none of the directory's tables, in
 * one transaction: all of it, or nothing. The schema is built by the migrations the backup was
 * made at, the rows go in as they were (ids, keys, secrets, the change feed and the directory's
 * id), the sequences are set where the original's stood, and the migrations the backup predates
 * then bring it up to date. Its webhook subscriptions come up disabled (hold-webhooks.ts). A
 * backup from PGlite loads into PostgreSQL and back: it holds rows, not either server's files or
 * SQL dialect.
 */
export async function restoreBackup(database: Database, input: Readable): Promise<RestoreSummary> {
  const lines = new BackupLines(input);
  const runner = database.dataSource.createQueryRunner();
  try {
    const first = await lines.next();
    const header = parseHeader(first);
    lines.count(first as string);
    await runner.connect();
    await runner.startTransaction();
    try {
      // Instances of the service starting meanwhile would migrate the same empty database.
      if (database.kind === 'postgres')
        await runner.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const tablesBefore = await relations(runner, TABLE_KINDS);
      const sequencesBefore = await relations(runner, SEQUENCE_KINDS);
      const existing = BACKUP_TABLES.map((table) => table.name).filter((name) => tablesBefore.has(name));
      if (existing.length > 0) {
        throw new BackupError(
          'the database already holds a directory; restore loads a backup only into an empty one',
        );
      }
      await new MigrationsOfBackup(
        database.dataSource,
        runner,
        new Set(header.migrations),
      ).executePendingMigrations();
      const tables = difference(await relations(runner, TABLE_KINDS), tablesBefore);
      const sequences = difference(await relations(runner, SEQUENCE_KINDS), sequencesBefore);
      // What the migrations wrote themselves (the migration list, a new directory id) gives way to
      // the backup's own rows.
      if (tables.size > 0) await runner.query(`TRUNCATE ${[...tables].map(quoted).join(', ')}`);
      const rows = await loadRows(runner, lines, tables, sequences);
      const migrated = await new MigrationExecutor(database.dataSource, runner).executePendingMigrations();
      const webhooks = await holdWebhooks(runner);
      await runner.commitTransaction();
      // PGlite runs no autovacuum: without statistics, its planner would scan where it should seek.
      // (The tables as they are now: a migration run since may have dropped one.)
      const loaded = [...(await relations(runner, TABLE_KINDS))].filter((name) => tables.has(name));
      await runner.query(`VACUUM ANALYZE ${loaded.map(quoted).join(', ')}`);
      return { header, rows, migrated: migrated.map((migration) => migration.name), webhooks };
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  } finally {
    lines.close();
    input.destroy();
    await runner.release();
  }
}

/** Every line after the header: the tables' rows, the sequences, and the end with its checks. */
async function loadRows(
  runner: QueryRunner,
  lines: BackupLines,
  tables: ReadonlySet<string>,
  sequences: ReadonlySet<string>,
): Promise<Record<string, number>> {
  const loaded: Record<string, number> = {};
  let current: { name: string; insert: string } | null = null;
  let batch: string[] = [];
  let batchCharacters = 0;
  let sequencesSet = false;

  const flush = async () => {
    if (current === null || batch.length === 0) return;
    const { name, insert } = current;
    const result: { affected?: number } = await runner
      .query(insert, [`[${batch.join(',')}]`], true)
      .catch((error: unknown) => {
        throw new BackupError(`table ${name} near line ${lines.number}: ${messageOf(error)}`);
      });
    // A line that is not exactly one row object would have made more rows, or fewer.
    if (result.affected !== batch.length) {
      throw new BackupError(`table ${name} near line ${lines.number}: the rows are not one a line`);
    }
    loaded[name] += batch.length;
    batch = [];
    batchCharacters = 0;
  };

  for (let line = await lines.next(); line !== null; line = await lines.next()) {
    if (line.startsWith('{')) {
      if (current === null) throw new BackupError(`line ${lines.number} is a row outside any table`);
      lines.count(line);
      batch.push(line);
      batchCharacters += line.length;
      if (batch.length >= BATCH_ROWS || batchCharacters >= BATCH_CHARACTERS) await flush();
      continue;
    }
    await flush();
    current = null;
    const control = parseControl(line, lines.number);
    if (control[0] === 'end') {
      const [, end] = control as ['end', BackupEnd];
      checkEnd(end, lines.digest(), loaded, tables);
      if (!sequencesSet) throw new BackupError('the backup holds no sequences');
      if ((await lines.next()) !== null)
        throw new BackupError(`line ${lines.number} follows the backup's end`);
      return loaded;
    }
    lines.count(line);
    if (control[0] === 'table') {
      const [, name, columns] = control as ['table', string, string[]];
      if (!tables.has(name) || name in loaded) {
        throw new BackupError(
          `line ${lines.number} starts table ${name}, which this schema does not expect here`,
        );
      }
      // By name: rows are objects, and a column's place may differ (a migration undone and redone).
      const actual: { name: string }[] = await runner.query(COLUMNS_SQL, [name]);
      const sorted = (list: string[]) => JSON.stringify([...list].sort());
      if (!Array.isArray(columns) || sorted(actual.map((column) => column.name)) !== sorted(columns)) {
        throw new BackupError(`table ${name} has other columns in the backup than the schema it was made at`);
      }
      loaded[name] = 0;
      current = {
        name,
        insert: `INSERT INTO ${quoted(name)} SELECT * FROM json_populate_recordset(NULL::${quoted(name)}, $1::json)`,
      };
    } else if (control[0] === 'sequences') {
      await setSequences(runner, control[1] as BackupSequence[], sequences);
      sequencesSet = true;
    } else {
      throw new BackupError(`line ${lines.number} is not part of a backup`);
    }
  }
  throw new BackupError(
    `it is cut short: it ends at line ${lines.number}, without the backup's last line (an incomplete copy?)`,
  );
}

function parseControl(line: string, number: number): unknown[] {
  try {
    const control = JSON.parse(line);
    if (Array.isArray(control) && typeof control[0] === 'string') return control;
  } catch {
    // Reported below, as for any other line that is not part of a backup.
  }
  throw new BackupError(`line ${number} is not part of a backup`);
}

function checkEnd(
  end: BackupEnd,
  digest: string,
  loaded: Record<string, number>,
  tables: ReadonlySet<string>,
): void {
  if (end?.sha256 !== digest) {
    throw new BackupError(
      'it has been changed or damaged since it was written (its checksum does not match)',
    );
  }
  const missing = [...tables].filter((name) => !(name in loaded));
  if (missing.length > 0) throw new BackupError(`it lacks the tables ${missing.join(', ')}`);
  for (const [name, count] of Object.entries(end.rows ?? {})) {
    if (loaded[name] !== count) {
      throw new BackupError(`table ${name}: the backup says ${count} rows, ${loaded[name] ?? 0} were read`);
    }
  }
}

async function setSequences(
  runner: QueryRunner,
  values: BackupSequence[],
  sequences: ReadonlySet<string>,
): Promise<void> {
  const [{ schema }]: { schema: string }[] = await runner.query('SELECT current_schema() AS schema');
  const given = new Set(values.map((value) => value.name));
  const missing = [...sequences].filter((name) => !given.has(name));
  if (missing.length > 0) throw new BackupError(`it lacks the sequences ${missing.join(', ')}`);
  for (const { name, last_value, is_called } of values) {
    if (!sequences.has(name)) throw new BackupError(`it holds a sequence ${name} that this schema lacks`);
    await runner.query('SELECT setval($1::regclass, $2::bigint, $3)', [
      `${quoted(schema)}.${quoted(name)}`,
      last_value,
      is_called,
    ]);
  }
}

function difference(all: Set<string>, before: Set<string>): Set<string> {
  return new Set([...all].filter((name) => !before.has(name)));
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown })?.message;
  return String(message ?? error).split('\n')[0];
}
