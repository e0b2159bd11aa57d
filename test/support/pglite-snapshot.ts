import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Database, migrate, openDatabase } from '../../src/infrastructure/persistence/database';
import { PGLITE_SNAPSHOT_VARIABLE } from './run-variables';

let loaded: Blob | undefined;

/**
 * A migrated PGlite database in memory. A new PGlite runs initdb and then the migrations (about 2 s
 * quiet, 6-9 s on a busy machine); loading a dump of an already migrated one takes a quarter of
 * that. The first database of a run makes the dump, every later one (in any worker) loads it.
 * Without the variable (a Jest config without the global setup) each database is built afresh.
 */
export async function openMigratedPglite(): Promise<Database> {
  const path = process.env[PGLITE_SNAPSHOT_VARIABLE];
  if (loaded === undefined && path && existsSync(path)) loaded = new Blob([readFileSync(path)]);
  const database = await openDatabase({ databaseUrl: null, loadDataDir: loaded });
  try {
    // Nothing pending when loaded from the snapshot; a check of one table.
    await migrate(database);
    if (loaded === undefined && path) await writeSnapshot(database, path);
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
  return database;
}

/**
 * The run's migrated snapshot, made now if no database of the run has made it yet; undefined
 * without the global setup's variable.
 */
export async function migratedSnapshot(): Promise<Blob | undefined> {
  const path = process.env[PGLITE_SNAPSHOT_VARIABLE];
  if (!path) return undefined;
  if (loaded === undefined && !existsSync(path)) await (await openMigratedPglite()).close();
  if (loaded === undefined) loaded = new Blob([readFileSync(path)]);
  return loaded;
}

let loadedEmpty: Blob | undefined;

/**
 * A new PGlite in memory with no schema yet, for tests of the migrations themselves: loaded from
 * the run's dump of a new database, which the first such test makes, rather than initdb each time
 * (about 2 s quiet). Without the variable, a new database.
 */
export async function openEmptyPglite(): Promise<Database> {
  const snapshot = process.env[PGLITE_SNAPSHOT_VARIABLE];
  const path = snapshot ? join(dirname(snapshot), 'empty.tar') : undefined;
  if (loadedEmpty === undefined && path && existsSync(path)) loadedEmpty = new Blob([readFileSync(path)]);
  const database = await openDatabase({ databaseUrl: null, loadDataDir: loadedEmpty });
  if (loadedEmpty === undefined && path) {
    try {
      await writeSnapshot(database, path);
    } catch (error) {
      await database.close().catch(() => undefined);
      throw error;
    }
  }
  return database;
}

async function writeSnapshot(database: Database, path: string): Promise<void> {
  const pglite = database.gate?.pglite;
  if (pglite === undefined) return;
  const dump = await pglite.dumpDataDir('none');
  // Written aside and renamed: a worker reading it at the same time sees all of it or nothing.
  const aside = `${path}.${process.pid}`;
  writeFileSync(aside, Buffer.from(await dump.arrayBuffer()));
  renameSync(aside, path);
}
