import { randomBytes } from 'node:crypto';
import {
  type Database,
  MIGRATIONS,
  migrate,
  openDatabase,
} from '../../src/infrastructure/persistence/database';
import { openMigratedPglite } from './pglite-snapshot';

export interface TestDatabaseTarget {
  name: 'pglite' | 'postgres';
  url: string | null;
}

const postgresUrl = process.env.TEST_DATABASE_URL?.trim() || process.env.DATABASE_URL?.trim() || null;

const allTargets: TestDatabaseTarget[] = [
  { name: 'pglite', url: null },
  ...(postgresUrl ? [{ name: 'postgres' as const, url: postgresUrl }] : []),
];

/**
 * PGlite always; PostgreSQL too when TEST_DATABASE_URL (or DATABASE_URL) names one.
 * TEST_DATABASES (e.g. "postgres") narrows the list, so CI can run PGlite and PostgreSQL as two
 * stages without running the PGlite tests twice.
 */
export const testDatabases: TestDatabaseTarget[] = selectTargets(process.env.TEST_DATABASES);

function selectTargets(selection: string | undefined): TestDatabaseTarget[] {
  const wanted = selection
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (!wanted || wanted.length === 0) return allTargets;
  for (const name of wanted) {
    if (name !== 'pglite' && name !== 'postgres')
      throw new Error(`TEST_DATABASES: unknown database "${name}"`);
    if (name === 'postgres' && !postgresUrl)
      throw new Error('TEST_DATABASES names postgres but TEST_DATABASE_URL is unset');
  }
  return allTargets.filter((target) => wanted.includes(target.name));
}

/**
 * A fresh, migrated database: PGlite in memory, loaded from the run's migrated snapshot (still
 * about 0.5 s, so share one per test file), or on PostgreSQL a schema of its own, dropped by close().
 */
export async function openTestDatabase(target: TestDatabaseTarget): Promise<Database> {
  if (target.url === null) return openMigratedPglite();
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const database = await openDatabase({ databaseUrl: target.url, schema });
  const dropAndClose = async () => {
    try {
      await database.dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await database.close();
    }
  };
  try {
    await migrate(database);
  } catch (error) {
    await dropAndClose();
    throw error;
  }
  return { kind: database.kind, dataSource: database.dataSource, close: dropAndClose };
}

/** Undoes the migrations down to `name`, that one included; answers their names, in order. */
export async function undoTo(database: Database, name: string): Promise<string[]> {
  const from = MIGRATIONS.findIndex((migration) => migration.name === name);
  if (from < 0) throw new Error(`no migration ${name}`);
  for (let i = from; i < MIGRATIONS.length; i += 1) await database.dataSource.undoLastMigration();
  return MIGRATIONS.slice(from).map((migration) => migration.name);
}
