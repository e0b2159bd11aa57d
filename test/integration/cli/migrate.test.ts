import { randomBytes } from 'node:crypto';
import { type Database, openDatabase } from '../../../src/infrastructure/persistence/database';
import { testDatabases } from '../../support/databases';
import { openEmptyPglite } from '../../support/pglite-snapshot';
import { cli } from './cli-harness';

/** A database with no schema yet: PGlite in memory, or a fresh PostgreSQL schema. */
async function openEmpty(url: string | null): Promise<{ database: Database; drop: () => Promise<void> }> {
  if (url === null) {
    const database = await openEmptyPglite();
    return { database, drop: () => database.close() };
  }
  const schema = `cli_${randomBytes(4).toString('hex')}`;
  const database = await openDatabase({ databaseUrl: url, schema });
  return {
    database,
    drop: async () => {
      await database.dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await database.close();
    },
  };
}

describe.each(testDatabases)('migrate on $name', (target) => {
  it('applies the pending migrations once, then finds the database up to date', async () => {
    const { database, drop } = await openEmpty(target.url);
    try {
      const first = await cli(database, ['migrate']);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^applied \S+\n(applied \S+\n)*applied \d+ migrations?\n$/);

      expect(await cli(database, ['migrate'])).toEqual({
        code: 0,
        stdout: 'the database is up to date\n',
        stderr: '',
      });
    } finally {
      await drop();
    }
  }, 90_000);

  it('applies pending migrations quietly before any other command', async () => {
    const { database, drop } = await openEmpty(target.url);
    try {
      expect(await cli(database, ['accounts', 'list'])).toMatchObject({ code: 0, stderr: '' });
      expect((await cli(database, ['migrate'])).stdout).toBe('the database is up to date\n');
    } finally {
      await drop();
    }
  }, 90_000);
});
