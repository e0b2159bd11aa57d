import { randomBytes } from 'node:crypto';
import { type Database, migrate, openDatabase } from '../../src/infrastructure/persistence/database';

export interface TestDatabaseTarget {
  name: 'pglite' | 'postgres';
  url: string | null;
}

const postgresUrl = process.env.TEST_DATABASE_URL?.trim() || process.env.DATABASE_URL?.trim() || null;

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL (or DATABASE_URL) names one. */
export const testDatabases: TestDatabaseTarget[] = [
  { name: 'pglite', url: null },
  ...(postgresUrl ? [{ name: 'postgres' as const, url: postgresUrl }] : []),
];

/**
 * A fresh, migrated database: PGlite in memory (about 2 s to start, so share one per test file),
 * or on PostgreSQL a schema of its own, dropped by close().
 */
export async function openTestDatabase(target: TestDatabaseTarget): Promise<Database> {
  if (target.url === null) {
    const database = await openDatabase({ databaseUrl: null });
    await migrate(database);
    return database;
  }
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
