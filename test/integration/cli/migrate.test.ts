import { randomBytes } from 'node:crypto';
import {
  type Database,
  MIGRATIONS,
  migrate,
  openDatabase,
  SchemaNewerThanCode,
} from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';
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

  it('--status lists every migration pending on a new database, exits 0 and changes nothing', async () => {
    const { database, drop } = await openEmpty(target.url);
    try {
      const status = await cli(database, ['migrate', '--status']);
      expect(status).toMatchObject({ code: 0, stderr: '' });
      const lines = status.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^STATUS +MIGRATION$/);
      expect(lines.slice(1, -1)).toEqual(
        MIGRATION_NAMES.map((name) => expect.stringMatching(`^pending +${name}$`)),
      );
      expect(lines.at(-1)).toBe(
        `0 applied, ${MIGRATION_NAMES.length} pending: \`npm run cli -- migrate\` applies them`,
      );
      // Not even the migrations table was made: the schema is still empty.
      expect(await tableNames(database)).toEqual([]);
    } finally {
      await drop();
    }
  }, 90_000);

  describe('on a migrated database', () => {
    let database: Database;
    beforeAll(async () => {
      database = await openTestDatabase(target);
    }, 60_000);
    afterAll(() => database?.close());

    it('--status lists every migration applied, in order, and none pending', async () => {
      const status = await cli(database, ['migrate', '--status']);
      expect(status).toMatchObject({ code: 0, stderr: '' });
      const lines = status.stdout.trimEnd().split('\n');
      expect(lines.slice(1, -1)).toEqual(
        MIGRATION_NAMES.map((name) => expect.stringMatching(`^applied +${name}$`)),
      );
      expect(lines.at(-1)).toBe(`${MIGRATION_NAMES.length} applied, 0 pending`);
    });

    it('--status lists a migration not applied yet as pending, and exits 0', async () => {
      const last = MIGRATION_NAMES.at(-1) as string;
      await database.dataSource.query('DELETE FROM migrations WHERE name = $1', [last]);
      try {
        const status = await cli(database, ['migrate', '--status']);
        expect(status.code).toBe(0);
        expect(status.stdout).toMatch(new RegExp(`\\npending +${last}\\n`));
        expect(status.stdout).toContain(`${MIGRATION_NAMES.length - 1} applied, 1 pending: `);
      } finally {
        await database.dataSource.query('INSERT INTO migrations (timestamp, name) VALUES ($1, $2)', [
          Number(last.slice(-13)),
          last,
        ]);
      }
    });

    describe('holding a migration of a newer version', () => {
      const FUTURE = 'SomethingNewer1799999999999';
      beforeAll(async () => {
        await database.dataSource.query('INSERT INTO migrations (timestamp, name) VALUES ($1, $2)', [
          1799999999999,
          FUTURE,
        ]);
      });
      afterAll(() => database.dataSource.query('DELETE FROM migrations WHERE name = $1', [FUTURE]));

      it('--status shows it as unknown, says to upgrade, and exits 0', async () => {
        const status = await cli(database, ['migrate', '--status']);
        expect(status.code).toBe(0);
        expect(status.stdout).toMatch(new RegExp(`\\nunknown +${FUTURE}\\n`));
        expect(status.stdout.trimEnd().split('\n').at(-1)).toBe(
          `${MIGRATION_NAMES.length + 1} applied, 0 pending; 1 migration applied by a newer version than ` +
            'this one ("unknown"): upgrade the code before starting it',
        );
      });

      it('migrate and every other command refuse it in one line, exit 1, and change nothing', async () => {
        const expected =
          `error: the database's schema is newer than this code: it holds migration ${FUTURE}, which ` +
          'this version does not know; upgrade the code (git pull, npm ci, npm run build) and start that\n';
        for (const argv of [['migrate'], ['accounts', 'list'], ['demo']]) {
          expect(await cli(database, argv)).toEqual({ code: 1, stdout: '', stderr: expected });
        }
        expect(await countRows(database, 'people')).toBe(0);
      });

      it("the service's migrate step refuses it before changing anything", async () => {
        await expect(migrate(database)).rejects.toThrow(SchemaNewerThanCode);
      });
    });
  });
});

const MIGRATION_NAMES = MIGRATIONS.map((migration) => new migration().name as string);

/** The tables of the schema the database works in. */
async function tableNames(database: Database): Promise<string[]> {
  const rows: { name: string }[] = await database.dataSource.query(
    'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1',
  );
  return rows.map(({ name }) => name);
}

async function countRows(database: Database, table: string): Promise<number> {
  const [{ count }] = await database.dataSource.query(`SELECT count(*)::int AS count FROM ${table}`);
  return Number(count);
}
