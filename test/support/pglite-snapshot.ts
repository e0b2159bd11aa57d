import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { type Database, migrate, openDatabase } from '../../src/infrastructure/persistence/database';
import { once } from './once';
import { PGLITE_SNAPSHOT_VARIABLE } from './run-variables';

/*
 * Test databases on PGlite start from dumps made once per run (the first test file to need one
 * makes it, every later one, in any worker, loads it): a new PGlite runs initdb (about 2 s quiet,
 * 6-9 s busy) and loading a dump is much cheaper — the cheaper the smaller the dump. A new
 * database as PGlite makes it dumps to 41 MB, loaded in ~0.7 s; the base here is trimmed of what
 * no test uses and every load would pay for, and dumps to ~10 MB, loaded in ~0.3 s:
 * - 1 MB WAL segments (initdb --wal-segsize=1) instead of 16 MB, and only the current one kept;
 * - no template0 or template1 databases (no test creates a database on PGlite);
 * - shared_buffers 16 MB instead of 128 MB: PostgreSQL zeroes its buffer pool at every start.
 * The copies of the migrated DATA_DIR that the service and the tool open in tests
 * (test/support/run-artifacts.ts) are made from it too. Without the global setup's variable
 * (a Jest config without test/support/global-setup.ts) each test file makes its own.
 */

let empty: Blob | undefined;
let migrated: Blob | undefined;

/** A new PGlite in memory with no schema yet, for tests of the migrations themselves. */
export async function openEmptyPglite(): Promise<Database> {
  return openDatabase({ databaseUrl: null, loadDataDir: await emptySnapshot() });
}

/** A migrated PGlite database in memory. */
export async function openMigratedPglite(): Promise<Database> {
  const database = await openDatabase({ databaseUrl: null, loadDataDir: await migratedSnapshot() });
  try {
    // Nothing pending when loaded from the snapshot; a check of one table.
    await migrate(database);
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
  return database;
}

/** The run's migrated snapshot, made now if no test file of the run has made it yet. */
export async function migratedSnapshot(): Promise<Blob> {
  migrated ??= await shared(process.env[PGLITE_SNAPSHOT_VARIABLE], async () => {
    const database = await openDatabase({ databaseUrl: null, loadDataDir: await emptySnapshot() });
    try {
      await migrate(database);
      return await trimmedDump(pgliteOf(database));
    } finally {
      await database.close();
    }
  });
  return migrated;
}

async function emptySnapshot(): Promise<Blob> {
  const snapshot = process.env[PGLITE_SNAPSHOT_VARIABLE];
  empty ??= await shared(snapshot && join(dirname(snapshot), 'empty.tar'), leanNewDatabase);
  return empty;
}

/**
 * The snapshot at `path`, made there by the first worker to ask while the others wait for it: the
 * first files of both workers need it at once, and making it twice side by side costs both.
 */
async function shared(path: string | undefined, make: () => Promise<Blob>): Promise<Blob> {
  if (!path) return make();
  await once(path, async (aside) => writeFileSync(aside, Buffer.from(await (await make()).arrayBuffer())));
  return new Blob([readFileSync(path)]);
}

async function leanNewDatabase(): Promise<Blob> {
  const pglite = await PGlite.create({ initDbStartParams: ['--wal-segsize=1'] });
  try {
    // One statement per call: neither runs inside a transaction block.
    await pglite.exec(`ALTER SYSTEM SET shared_buffers = '16MB'`);
    await pglite.exec(
      `UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`,
    );
    await pglite.exec('DROP DATABASE template0');
    await pglite.exec('DROP DATABASE template1');
    return await trimmedDump(pglite);
  } finally {
    await pglite.close();
  }
}

/**
 * The data directory as of a checkpoint, so that loading it replays no WAL, without the WAL
 * segments PostgreSQL keeps ready for later (the checkpoint needs only the current one).
 */
async function trimmedDump(pglite: PGlite): Promise<Blob> {
  await pglite.exec('CHECKPOINT');
  const { rows } = await pglite.query<{ name: string }>(
    'SELECT pg_walfile_name(pg_current_wal_lsn()) AS name',
  );
  const wal = '/pglite/data/pg_wal';
  const { FS } = pglite.Module;
  for (const file of FS.readdir(wal) as string[]) {
    if (/^[0-9A-F]{24}$/.test(file) && file !== rows[0].name) FS.unlink(`${wal}/${file}`);
  }
  return pglite.dumpDataDir('none');
}

function pgliteOf(database: Database): PGlite {
  const pglite = database.gate?.pglite;
  if (pglite === undefined) throw new Error('not an embedded database of this process');
  return pglite;
}
