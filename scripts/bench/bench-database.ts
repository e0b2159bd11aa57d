import { Client } from 'pg';
import { CHANGE_LOG_LOCK_KEY } from '../../src/infrastructure/persistence/sql-change-log';
import type { RowQueries } from './baseline-accounts';
import { baselineSchema } from './baseline-schema';

const DEFAULT_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';
export const BASELINE_SCHEMA = 'bench_baseline';
/** Where the stricter raw load (foreign keys set aside too) is timed, then dropped. */
export const STRICT_BASELINE_SCHEMA = 'bench_baseline_strict';

async function withClient<T>(connectionString: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Statements on the database at `url`, each on a connection of its own. */
export function rowQueries(url: string): RowQueries {
  return {
    query: (text, values = []) => withClient(url, async (client) => (await client.query(text, values)).rows),
  };
}

/**
 * `count` changes of members (person.updated, first_name), as the service writes them: in one
 * transaction under the change log's lock, seq from its sequence. The people need not change:
 * the feed shows each person as they are.
 */
export function writeMemberChanges(url: string, count: number): Promise<void> {
  return withClient(url, async (client) => {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [CHANGE_LOG_LOCK_KEY]);
    await client.query(
      `WITH m AS (SELECT array_agg(id ORDER BY id) AS ids FROM people WHERE role = 'member')
       INSERT INTO changes (seq, type, person_id, fields, by_key_id)
       SELECT nextval('changes_seq'), 'person.updated', m.ids[1 + (g - 1) % cardinality(m.ids)],
              ARRAY['first_name'], NULL
         FROM m, generate_series(1, $1::int) AS g`,
      [count],
    );
    await client.query('COMMIT');
  });
}

/**
 * Where the benchmark keeps its data: the service's tables (made by its own migrations) and the
 * baseline's copy in schema `bench_baseline` of the same database. With DATABASE_URL that
 * database is used as it is (it must hold no people yet); otherwise a fresh `bench_<time>`
 * database is created on the local server and dropped at the end.
 */
export class BenchDatabase {
  private constructor(
    readonly url: string,
    private readonly created: { name: string; serverUrl: string } | null,
  ) {}

  static async prepare(env: NodeJS.ProcessEnv): Promise<BenchDatabase> {
    const given = env.DATABASE_URL?.trim();
    if (given) {
      const people = await withClient(given, async (client) => {
        const exists = await client.query(`SELECT to_regclass('public.people') IS NOT NULL AS present`);
        if (!exists.rows[0].present) return 0;
        const count = await client.query('SELECT count(*)::int AS n FROM people');
        return count.rows[0].n as number;
      });
      if (people > 0) {
        throw new Error(
          `DATABASE_URL already holds ${people} people; the benchmark imports its own directory and needs an empty database`,
        );
      }
      return new BenchDatabase(given, null);
    }
    const serverUrl = env.BENCH_POSTGRES_URL?.trim() || DEFAULT_SERVER;
    const name = `bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
    await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return new BenchDatabase(url.toString(), { name, serverUrl });
  }

  get description(): string {
    return this.created ? `fresh database ${this.created.name}` : 'DATABASE_URL';
  }

  async createBaselineSchema(schema = BASELINE_SCHEMA): Promise<void> {
    await withClient(this.url, async (client) => {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(baselineSchema(schema));
    });
  }

  async dropSchema(schema: string): Promise<void> {
    await withClient(this.url, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
  }

  /**
   * VACUUM ANALYZE of every table in the database (both copies), then a CHECKPOINT: the loads'
   * dirty pages are written now, not by a checkpoint running into the first scenario (the
   * service's cold round comes first). Returns the seconds it took.
   */
  async vacuumAnalyze(): Promise<number> {
    const started = performance.now();
    await withClient(this.url, async (client) => {
      await client.query('VACUUM ANALYZE');
      await client.query('CHECKPOINT');
    });
    return (performance.now() - started) / 1000;
  }

  /**
   * Waits until the service's calendar job (run at its start, then every minute) has dealt with
   * every membership the import left due; returns the seconds waited. After an import of 100,000
   * people it marks some 300,000 memberships: minutes of work that, left to run into the first
   * scenarios, competed with their requests and left the service's memberships table with as many
   * dead rows (this server runs no autovacuum) while the baseline's stayed clean.
   */
  async calendarCaughtUp(timeoutMs = 600_000): Promise<number> {
    const started = performance.now();
    await withClient(this.url, async (client) => {
      for (;;) {
        const { rows } = await client.query<{ due: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM public.memberships
                           WHERE (NOT start_announced AND start_date <= (now() AT TIME ZONE 'UTC')::date)
                              OR (NOT end_announced AND end_date < (now() AT TIME ZONE 'UTC')::date)) AS due`,
        );
        if (!rows[0].due) return;
        if (performance.now() - started > timeoutMs)
          throw new Error('the service never caught up with its calendar');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    });
    return (performance.now() - started) / 1000;
  }

  /** `count` changes of members, as the service writes them (see writeMemberChanges). */
  writeChanges(count: number): Promise<void> {
    return writeMemberChanges(this.url, count);
  }

  query<T>(text: string, values: unknown[] = []): Promise<T[]> {
    return rowQueries(this.url).query<T>(text, values);
  }

  /** Drops what the benchmark made: the whole database when it created it, else the baseline schema. */
  async cleanUp(): Promise<string> {
    if (this.created) {
      const { name, serverUrl } = this.created;
      await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      return `dropped database ${name}`;
    }
    await withClient(this.url, async (client) => {
      // The strict load's schema too, should the run have been stopped while it was timed.
      await client.query(`DROP SCHEMA IF EXISTS ${STRICT_BASELINE_SCHEMA} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${BASELINE_SCHEMA} CASCADE`);
    });
    return `dropped schema ${BASELINE_SCHEMA}; the imported people stay in DATABASE_URL`;
  }
}
