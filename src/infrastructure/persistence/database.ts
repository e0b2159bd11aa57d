import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Socket } from 'node:net';
import pg from 'pg';
import { DataSource, type DataSourceOptions, MigrationExecutor, type QueryRunner } from 'typeorm';
import { Unavailable } from '../../domain/errors';
import { acquireDataDirLock } from '../embedded/data-dir-lock';
import { connectionPool } from './connection-pool';
import { isDatabaseUnavailable, withDatabaseErrors } from './database-errors';
import { LocalPgStream } from '../embedded/local-pg-stream';
import { PgliteGate } from '../embedded/pglite-gate';
import { type PrivateDataDir, preparePrivateDataDir, tightenDataDir } from '../embedded/private-data-dir';
import { SERVICE_SEARCH_PATH } from '../embedded/session-state';
import { InitialSchema1767225600000 } from './migrations/1767225600000-initial-schema';
import { CaseFoldedColumns1767312000000 } from './migrations/1767312000000-case-folded-columns';
import { ChatIdUniqueAmongMembers1767398400000 } from './migrations/1767398400000-chat-id-unique-among-members';
import { ChangeLog1767484800000 } from './migrations/1767484800000-change-log';
import { MemberNumbersAndErasure1767657600000 } from './migrations/1767657600000-member-numbers-and-erasure';
import { Webhooks1767571200000 } from './migrations/1767571200000-webhooks';
import { WebhookSubscriptionCursors1767744000000 } from './migrations/1767744000000-webhook-subscription-cursors';
import { RemovedAndEndingChanges1767830400000 } from './migrations/1767830400000-removed-and-ending-changes';
import { ErasedAccounts1767916800000 } from './migrations/1767916800000-erased-accounts';
import { RenewalNotices1768003200000 } from './migrations/1768003200000-renewal-notices';
import { NameSearchStatistics1768089600000 } from './migrations/1768089600000-name-search-statistics';
import { NameIndexPendingLists1768176000000 } from './migrations/1768176000000-name-index-pending-lists';
import { WebhooksKeepWaiting1768262400000 } from './migrations/1768262400000-webhooks-keep-waiting';
import { StandingAnnouncements1768348800000 } from './migrations/1768348800000-standing-announcements';
import { ApiKeySchema } from './schemas/api-key-schema';
import { AuditEntrySchema } from './schemas/audit-entry-schema';
import { PersonSchema } from './schemas/person-schema';

export interface Database {
  kind: 'postgres' | 'pglite';
  dataSource: DataSource;
  close(): Promise<void>;
  /** PGlite on a directory: where, and whether opening it created the database or tightened it. */
  dataDir?: PrivateDataDir;
  /** PGlite opened by this process: how connections, this process's and others', take turns. */
  gate?: PgliteGate;
  /** PGlite held by another process (the running service), reached through its socket: its pid. */
  servedBy?: number;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; null runs the embedded PGlite. */
  databaseUrl: string | null;
  /** PGlite's data directory; undefined keeps the database in memory. */
  dataDir?: string;
  /** PostgreSQL only: work in this schema (search_path "<schema>, public"), created if missing. */
  schema?: string;
  /**
   * PGlite only: start from this dumped data directory (`PGlite.dumpDataDir`) instead of an empty
   * database. Tests start every database from one migrated snapshot: about five times faster than
   * creating and migrating each.
   */
  loadDataDir?: Blob;
}

/**
 * The tables the repositories reach through TypeORM's Repository API. Contacts, memberships and
 * clubs are read and written only by SQL (docs/decisions.md, "Persistence"): they have no schema,
 * and the migrations are their one description. test/integration/persistence/schema-drift.test.ts
 * holds these schemas and the migrations to each other.
 */
export const ENTITIES = [PersonSchema, ApiKeySchema, AuditEntrySchema];

/** In order. Classes rather than a glob, so that compiled code and Jest load the same list. */
export const MIGRATIONS = [
  InitialSchema1767225600000,
  CaseFoldedColumns1767312000000,
  ChatIdUniqueAmongMembers1767398400000,
  ChangeLog1767484800000,
  Webhooks1767571200000,
  MemberNumbersAndErasure1767657600000,
  WebhookSubscriptionCursors1767744000000,
  RemovedAndEndingChanges1767830400000,
  ErasedAccounts1767916800000,
  RenewalNotices1768003200000,
  NameSearchStatistics1768089600000,
  NameIndexPendingLists1768176000000,
  WebhooksKeepWaiting1768262400000,
  StandingAnnouncements1768348800000,
];

/** Any constant works, as long as every instance of the service uses the same one. */
export const MIGRATION_LOCK_KEY = 72_707_369;

const DATE_OID = 1082;

const CONNECT_TIMEOUT_MS = 5000;

// DATE values stay 'YYYY-MM-DD' strings: pg would otherwise build a Date at local midnight, which
// shifts the calendar day in any time zone west of the server. Set per pool, not on pg's globals.
const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === DATE_OID
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const common = {
  type: 'postgres',
  entities: ENTITIES,
  migrations: MIGRATIONS,
  // The schema changes only through the migrations, run on purpose by `migrate`.
  synchronize: false,
  migrationsRun: false,
  installExtensions: false,
  logging: false,
} as const;

export interface DataSourceParts {
  kind: Database['kind'];
  dataSource: DataSource;
  /** The embedded database behind the DataSource, to close after it; null for PostgreSQL. */
  pglite: PGlite | null;
  gate: PgliteGate | null;
}

/** The DataSource (not yet initialised) for these options; also what the TypeORM CLI loads. */
export function createDataSource(options: DatabaseOptions): DataSourceParts {
  if (options.databaseUrl === null) {
    // Private from the start (openDatabase also tightens an existing one; see preparePrivateDataDir).
    if (options.dataDir !== undefined) mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    // The options-object form: `new PGlite(undefined, { extensions })` ignores the extensions.
    const pglite = new PGlite({
      dataDir: options.dataDir,
      extensions: { pg_trgm },
      startParams: startParams(),
      ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
    });
    const gate = new PgliteGate(pglite);
    const dataSource = new DataSource({
      ...common,
      // PGlite is one session, which connections take in turn: a pool of one queues requests
      // instead of failing them, and never waits for itself.
      poolSize: 1,
      username: 'postgres',
      database: 'postgres',
      extra: { stream: () => new LocalPgStream(gate), types: typeParsers },
    } as DataSourceOptions);
    return { kind: 'pglite', dataSource, pglite, gate };
  }
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`schema name "${options.schema}" must be lower-case letters, digits and underscores`);
  }
  const extra: Record<string, unknown> = { types: typeParsers, keepAlive: true };
  if (options.schema !== undefined) extra.options = `-c search_path=${options.schema},public`;
  const dataSource = new DataSource({
    ...common,
    url: options.databaseUrl,
    poolSize: 10,
    // Waiting for a connection ends after 5 s, so an outage answers 503 quickly instead of hanging.
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    // pg removes a broken idle client from the pool by itself; the next query reports any outage.
    // Without a handler, an idle client's error (a database restart) would crash the process.
    poolErrorHandler: () => undefined,
    extra,
  });
  return { kind: 'postgres', dataSource, pglite: null, gate: null };
}

/**
 * PGlite's own start parameters, with the service's search path (see SERVICE_SEARCH_PATH): as a
 * start parameter it is also what RESET ALL goes back to when the gate takes the session back
 * from a tool.
 */
function startParams(): string[] {
  const path = `search_path=${SERVICE_SEARCH_PATH.replace(/ /g, '')}`;
  const params = PGlite.defaultStartParams.map((param) => (param.startsWith('search_path=') ? path : param));
  if (!params.includes(path))
    throw new Error('PGlite no longer sets search_path at start: see startParams()');
  return params;
}

/**
 * Whether the DataSource reaches the embedded database (in this process, or the service's through
 * its socket): one session, which every connection shares, one statement at a time.
 */
export function isEmbedded(dataSource: DataSource): boolean {
  return (dataSource.options.extra as { stream?: unknown } | undefined)?.stream !== undefined;
}

/**
 * Before the DataSource connects: TypeORM notes the current schema when it connects, and the
 * search path only names a schema once it exists.
 */
async function createSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // A broken connection is reported by the query below; the event alone must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (error) {
    // Two instances creating the same schema at once: the loser sees a duplicate; it exists now.
    const code = (error as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** How many queries are waiting for one of the pool's connections right now. */
export function queriesWaiting(database: Database): number {
  // pg's Pool counts them itself.
  return connectionPool(database.dataSource)?.waitingCount ?? 0;
}

/** Connects (PostgreSQL) or opens (PGlite). Does not run migrations: see `migrate`. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const embedded = options.databaseUrl === null && options.dataDir !== undefined ? options.dataDir : null;
  // Before anything is written into it, the lock file included.
  const dataDir = embedded === null ? undefined : preparePrivateDataDir(embedded);
  // PGlite belongs to one process: a second one opening the directory would lose writes silently.
  const lock = embedded === null ? null : acquireDataDirLock(embedded);
  const { kind, dataSource, pglite, gate } = createDataSource(options);
  // PGlite sets its files' modes itself (0666 for a new database's files, 0644 for the caches it
  // rewrites at start and the statistics it writes at shutdown), whatever the umask: tightened
  // again once it has started and once it has stopped.
  const tighten = () => {
    if (dataDir !== undefined && process.platform !== 'win32') tightenDataDir(dataDir.path);
  };
  try {
    if (options.databaseUrl !== null && options.schema !== undefined) {
      await createSchema(options.databaseUrl, options.schema);
    }
    await dataSource.initialize();
    tighten();
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    await pglite?.close().catch(() => undefined);
    lock?.release();
    if (isDatabaseUnavailable(error)) throw new Unavailable('the database is unavailable');
    throw error;
  }
  return {
    kind,
    dataSource,
    dataDir,
    ...(gate === null ? {} : { gate }),
    async close() {
      try {
        if (dataSource.isInitialized) await dataSource.destroy();
        if (pglite && !pglite.closed) await pglite.close();
        tighten();
      } finally {
        lock?.release();
      }
    },
  };
}

/**
 * The embedded database another process holds (the service, see serveDatabase), reached over
 * PostgreSQL's protocol on its socket. One connection: the session is PGlite's only one, so a
 * second connection of this process would wait forever for the first one's transaction.
 */
export async function connectToDatabaseServer(socketPath: string, servedBy: number): Promise<Database> {
  const dataSource = new DataSource({
    ...common,
    poolSize: 1,
    username: 'postgres',
    database: 'postgres',
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    extra: { stream: () => socketTo(socketPath), types: typeParsers },
  } as DataSourceOptions);
  try {
    await dataSource.initialize();
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw new Unavailable('the database is unavailable');
    throw error;
  }
  return { kind: 'pglite', dataSource, servedBy, close: () => dataSource.destroy() };
}

/**
 * A socket for pg that connects to this path whatever pg asks for: pg itself only knows TCP and
 * `<directory>/.s.PGSQL.<port>`, while the socket may also be under the temporary directory or,
 * on Windows, a named pipe.
 */
function socketTo(path: string): Socket {
  const socket = new Socket();
  const connect = socket.connect.bind(socket);
  return Object.assign(socket, { connect: () => connect(path) });
}

/**
 * The database was migrated by newer code than this: it holds migrations this code does not know,
 * whose schema this code's queries were not written for (a column renamed, a constraint widened).
 * Starting on it could fail in odd ways or write what the newer code cannot read.
 */
export class SchemaNewerThanCode extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `the database's schema is newer than this code: it holds migration ${unknown.join(', ')}, ` +
        'which this version does not know; upgrade the code (git pull, npm ci, npm run build) and start that',
    );
    this.name = 'SchemaNewerThanCode';
  }
}

export interface MigrationStatus {
  /** Applied, in the order they were applied: known to this code or not. */
  applied: { name: string; known: boolean }[];
  /** Known to this code and not applied yet, in the order `migrate` would apply them. */
  pending: string[];
}

/**
 * What the database's migrations table says, without changing anything: a database that has
 * none yet (never migrated) has every migration pending.
 */
export async function migrationStatus(database: Database): Promise<MigrationStatus> {
  const queryRunner = database.dataSource.createQueryRunner();
  try {
    await queryRunner.connect();
    return await statusOn(database, queryRunner);
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw new Unavailable('the database is unavailable');
    throw error;
  } finally {
    await queryRunner.release();
  }
}

async function statusOn(database: Database, queryRunner: QueryRunner): Promise<MigrationStatus> {
  // Ordered by their timestamps (the name's last 13 digits), as TypeORM applies them.
  const known = database.dataSource.migrations
    .map((migration) => migration.name ?? migration.constructor.name)
    .sort((a, b) => Number(a.slice(-13)) - Number(b.slice(-13)));
  const executed = await new MigrationExecutor(database.dataSource, queryRunner).getExecutedMigrations();
  // TypeORM answers the newest first.
  const applied = [...executed]
    .sort((a, b) => (a.id ?? 0) - (b.id ?? 0))
    .map(({ name }) => ({ name, known: known.includes(name) }));
  const done = new Set(applied.map(({ name }) => name));
  return { applied, pending: known.filter((name) => !done.has(name)) };
}

/** The migrations among `names` that this code does not know: a newer version applied them. */
export function unknownMigrations(names: readonly string[]): string[] {
  const known = new Set(MIGRATIONS.map((migration) => migration.name));
  return names.filter((name) => !known.has(name));
}

/**
 * Applies pending migrations and returns their names. On PostgreSQL it holds an advisory lock on
 * one connection meanwhile, so that instances starting together migrate one after another (the
 * later ones then find nothing pending). PGlite belongs to one process: no lock needed. Refuses
 * (SchemaNewerThanCode) a database that newer code has migrated, before changing anything.
 */
export async function migrate(database: Database): Promise<string[]> {
  const queryRunner = database.dataSource.createQueryRunner();
  const locking = database.kind === 'postgres';
  try {
    await queryRunner.connect();
    if (locking) await queryRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      // Under the lock: a newer instance migrating at this moment is seen once it has finished.
      const unknown = (await statusOn(database, queryRunner)).applied.filter(({ known }) => !known);
      if (unknown.length > 0) throw new SchemaNewerThanCode(unknown.map(({ name }) => name));
      const applied = await new MigrationExecutor(
        database.dataSource,
        queryRunner,
      ).executePendingMigrations();
      return applied.map((migration) => migration.name);
    } finally {
      // If the connection broke, the lock ended with its session anyway.
      if (locking)
        await queryRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw new Unavailable('the database is unavailable');
    throw error;
  } finally {
    await queryRunner.release();
  }
}

const DIRECTORY_TABLES = 'people, contacts, memberships, clubs';

/**
 * Brings the planner's statistics (and, with `vacuum`, the trigram indexes' pending entries) up to
 * date. PostgreSQL's autovacuum does this about a minute after a bulk import; until then name
 * searches were 20-40 times slower. PGlite runs no autovacuum at all, so without this its planner
 * never has statistics and deep `active=yes` pages took almost a second.
 */
export async function refreshStatistics(database: Database, options: { vacuum: boolean }): Promise<void> {
  await withDatabaseErrors(() =>
    database.dataSource.query(`${options.vacuum ? 'VACUUM ANALYZE' : 'ANALYZE'} ${DIRECTORY_TABLES}`),
  );
}
