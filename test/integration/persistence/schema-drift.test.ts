import { randomBytes } from 'node:crypto';
import { type Database, openDatabase } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { openEmptyPglite } from '../../support/pglite-snapshot';

/**
 * The EntitySchemas (src/infrastructure/persistence/schemas) and the hand-written migrations
 * describe the same tables twice; these tests fail as soon as the two disagree. The only
 * intentional differences are the indexes a schema marks `synchronize: false`: the migrations own
 * them, since TypeORM cannot describe them (trigram operator classes).
 */
describe.each(testDatabases)('EntitySchemas and migrations on $name', (target) => {
  let migrated: Database;
  /** The schemas alone, synchronized into an empty database (PostgreSQL: an empty schema). */
  let synced: Database;
  const syncedSchema = `sync_${process.pid}_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    migrated = await openTestDatabase(target);
    // On PGlite the run's new database, as the migrated one started: not an initdb of its own.
    synced =
      target.url === null
        ? await openEmptyPglite()
        : await openDatabase({ databaseUrl: target.url, schema: syncedSchema });
    await synced.dataSource.synchronize();
  });

  afterAll(async () => {
    if (target.url !== null) await synced?.dataSource.query(`DROP SCHEMA "${syncedSchema}" CASCADE`);
    await synced?.close();
    await migrated?.close();
  });

  const tables = () =>
    [...new Set(synced.dataSource.entityMetadatas.map((metadata) => metadata.tableName))].sort();

  /** Indexes the migrations own: named in a schema, but left out of synchronization. */
  const migrationOwned = () =>
    synced.dataSource.entityMetadatas
      .flatMap((metadata) => metadata.indices.filter((index) => !index.synchronize))
      .map((index) => index.name as string)
      .sort();

  /** Columns, constraints and indexes of the schemas' tables, with the schema's name taken out. */
  async function describeTables({ dataSource }: Database): Promise<Record<string, string[]>> {
    const [{ schema }]: { schema: string }[] = await dataSource.query('SELECT current_schema() AS schema');
    const query = async (sql: string): Promise<string[]> => {
      const rows: { line: string }[] = await dataSource.query(sql, [schema, tables()]);
      const qualified = new RegExp(`"?\\b${schema}"?\\.`, 'g');
      return rows.map((row) => row.line.replace(qualified, '')).sort();
    };
    return {
      columns: await query(`
        SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
               || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
               || COALESCE(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '') AS line
          FROM pg_attribute a
          JOIN pg_class c ON c.oid = a.attrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
          LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE n.nspname = $1 AND c.relname = ANY($2) AND c.relkind = 'r' AND a.attnum > 0
           AND NOT a.attisdropped`),
      constraints: await query(`
        SELECT c.relname || ' ' || con.conname || ' ' || pg_get_constraintdef(con.oid) AS line
          FROM pg_constraint con
          JOIN pg_class c ON c.oid = con.conrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relname = ANY($2)`),
      indexes: await query(`
        SELECT indexdef AS line FROM pg_indexes WHERE schemaname = $1 AND tablename = ANY($2)`),
    };
  }

  it('leaves TypeORM nothing to change in the migrated database', async () => {
    const sql = await migrated.dataSource.driver.createSchemaBuilder().log();

    expect(sql.upQueries.map((query) => query.query)).toEqual([]);
  });

  it('gives the schemas the same columns, types, defaults, constraints and indexes as the migrations', async () => {
    const fromMigrations = await describeTables(migrated);
    const fromSchemas = await describeTables(synced);
    const owned = migrationOwned();
    const isOwned = (indexdef: string) => owned.some((name) => indexdef.includes(` ${name} ON `));

    expect(tables()).toEqual(['api_keys', 'audit_entries', 'people']);
    expect(fromMigrations.columns.length).toBeGreaterThan(20);
    expect(fromSchemas).toEqual({
      ...fromMigrations,
      indexes: fromMigrations.indexes.filter((def) => !isOwned(def)),
    });
    // Each index the migrations own is there, under the name its schema gives it.
    expect(fromMigrations.indexes.filter(isOwned)).toHaveLength(owned.length);
  });
});
