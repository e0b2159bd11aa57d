import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { ErasurePurge } from '../../application/ports/erasure-purge';
import { isEmbedded } from './database';
import { withDatabaseErrors } from './database-errors';

/**
 * The tables whose rows can hold an erased person's values (SPEC §8): names, chat_id, planner_id,
 * member_number, username and password hash (people), contact values (contacts), old and new
 * values (audit_entries), key names (api_keys). A rewrite of each copies only the live rows into a
 * new file, rebuilding its indexes and its TOAST table, and the old file is emptied at commit;
 * until then an UPDATE or DELETE leaves the old row version in the table's pages and its key in
 * the indexes, which PGlite (no autovacuum) keeps for good and PostgreSQL's vacuum only marks free.
 */
const TABLES = ['people', 'contacts', 'audit_entries', 'api_keys'];

/**
 * How long a rewrite waits for the lock on a table once it has seen nobody holding it: while it
 * waits, every request that touches the table queues behind it, so it rather gives way at once,
 * and tries again after a pause (PAUSE_MS, doubling up to the pace's longest).
 */
const LOCK_TIMEOUT = '100ms';
const PAUSE_MS = 100;
const LOCK_NOT_AVAILABLE = '55P03';
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * How long a purge keeps trying, and how long it pauses at most between tries. The command line
 * waits for it (about as long as before: five tries behind a lock of 2 s were 12.5 s); in the
 * background it waits its turn for minutes, and the hourly retention job catches up after that.
 */
export interface PurgePace {
  forMs: number;
  longestPauseMs: number;
  /**
   * Wait, too, for the sessions holding a snapshot taken before the purge began: a rewrite keeps
   * the old row versions such a snapshot may still see (a backup, a long report), erased values
   * included, and would count the erasure purged all the same.
   */
  waitForSnapshots: boolean;
  /** Asked between tries: the service is stopping; the erasure stays counted, for the next purge. */
  stopped?: () => boolean;
}

const WAITED_FOR: PurgePace = { forMs: 12_500, longestPauseMs: 1000, waitForSnapshots: false };
const IN_BACKGROUND: PurgePace = { forMs: 10 * 60_000, longestPauseMs: 5000, waitForSnapshots: true };
/** The hourly job: patient too, for a minute; the next run tries again. */
const CATCHING_UP: PurgePace = { forMs: 60_000, longestPauseMs: 5000, waitForSnapshots: true };

/** Counts an erasure in the erasing transaction: the purge after it (or the retention job) catches up. */
export async function countErasure(manager: EntityManager): Promise<void> {
  await manager.query('UPDATE directory_meta SET erasures = erasures + 1');
}

/**
 * Rewrites what held erased values, when some erasure has not been purged yet; answers whether it
 * did. Each table is rewritten in its own statement (VACUUM FULL), holding its exclusive lock
 * only while that table is copied (docs/decisions.md, "Erased means gone"). On PostgreSQL it
 * never queues for a table another session holds (every request touching the table would queue
 * behind it): it looks first, gives way after 100 ms if the lock is taken meanwhile, and tries
 * again, at `pace`. Then the planner's statistics of those tables are gathered again, and
 * pg_statistic, whose old rows held their most common values and histograms, is rewritten too. On
 * PostgreSQL a role that does not own pg_statistic is told so by a warning and the rest is done:
 * its old rows go at autovacuum's pace (the README says so). The WAL keeps what it logged until it
 * is recycled.
 */
export async function purgeErasedValues(
  dataSource: DataSource,
  pace: PurgePace = WAITED_FOR,
): Promise<boolean> {
  const [meta]: { erasures: string; purged: string }[] = await dataSource.query(
    'SELECT erasures, erasures_purged AS purged FROM directory_meta',
  );
  if (meta === undefined || BigInt(meta.erasures) <= BigInt(meta.purged)) return false;
  if (isEmbedded(dataSource)) {
    // One session, which takes one statement at a time: no lock to wait for. PGlite runs in this
    // thread and answers without yielding to the event loop, so each statement first lets the
    // requests that arrived meanwhile in: the service stalls for one table's rewrite at a time,
    // not for the whole purge (measured in docs/decisions.md).
    await purge(async (sql, parameters) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (pace.stopped?.() === true) throw new PurgeNotDone('the service is stopping');
      return dataSource.query(sql, parameters);
    });
  } else {
    // A connection of its own, so that its lock timeout is nobody else's; the pool's other
    // connections go on serving.
    const runner = dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.query(`SET lock_timeout = '${LOCK_TIMEOUT}'`);
      const turns = new Turns(runner, pace);
      await turns.start();
      await purge((sql, parameters) => turns.take(sql, () => runner.query(sql, parameters)));
    } finally {
      await runner.query('RESET lock_timeout').catch(() => undefined);
      await runner.release();
    }
  }
  // Another erasure committed meanwhile counts beyond `meta.erasures`: its own purge follows.
  await dataSource.query(
    'UPDATE directory_meta SET erasures_purged = greatest(erasures_purged, $1::bigint)',
    [meta.erasures],
  );
  return true;
}

/** The purge gave up (its time ran out, or the service is stopping): the erasure stays counted. */
export class PurgeNotDone extends Error {}

/**
 * When a rewrite on PostgreSQL may go: nobody else holds its table (so it does not queue, holding
 * up everyone behind it), and, at a patient pace, no session holds a snapshot older than the purge.
 */
class Turns {
  private since: Date | null = null;
  private readonly deadline: number;

  constructor(
    private readonly runner: QueryRunner,
    private readonly pace: PurgePace,
  ) {
    this.deadline = Date.now() + pace.forMs;
  }

  async start(): Promise<void> {
    const [{ now }]: { now: Date }[] = await this.runner.query('SELECT now() AS now');
    this.since = now;
  }

  async take<T>(sql: string, statement: () => Promise<T>): Promise<T> {
    const table = /^VACUUM FULL (\S+)$/.exec(sql)?.[1];
    for (let pause = PAUSE_MS; ; pause = Math.min(pause * 2, this.pace.longestPauseMs)) {
      if (this.pace.stopped?.() === true) throw new PurgeNotDone('the service is stopping');
      if (table === undefined || (await this.free(table))) {
        try {
          return await statement();
        } catch (error) {
          if (codeOf(error) !== LOCK_NOT_AVAILABLE) throw error;
        }
      }
      if (Date.now() + pause > this.deadline) {
        throw new PurgeNotDone(
          `the erasure is done, but ${table ?? 'the statistics'} could not be rewritten yet to purge the erased values (other sessions hold it): the service's retention job tries again within the hour`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  private async free(table: string): Promise<boolean> {
    const [{ held, older }]: { held: boolean; older: boolean }[] = await this.runner.query(
      `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_locks l
                       WHERE l.relation = $1::regclass AND l.pid <> pg_backend_pid() AND l.granted) AS held,
              $2::bool AND EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a
                       WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
                         AND a.backend_type = 'client backend' AND a.backend_xmin IS NOT NULL
                         AND a.xact_start < $3) AS older`,
      [table, this.pace.waitForSnapshots, this.since],
    );
    return !held && !older;
  }
}

type Query = (sql: string, parameters?: unknown[]) => Promise<unknown>;

async function purge(query: Query): Promise<void> {
  for (const table of TABLES) await query(`VACUUM FULL ${table}`);
  await query(`ANALYZE ${TABLES.join(', ')}`);
  for (const table of TABLES) await forgetStatisticsIfEmpty(query, table);
  await query('VACUUM FULL pg_catalog.pg_statistic');
}

/**
 * ANALYZE of a table that has become empty (the last contacts deleted) leaves its statistics as
 * they were, values and all: they are removed. pg_statistic is written by a superuser only (the
 * embedded database's role, and the usual PostgreSQL one); another role on PostgreSQL 18 clears
 * them with pg_clear_attribute_stats, on an older one it cannot (the README says so).
 */
async function forgetStatisticsIfEmpty(query: Query, table: string): Promise<void> {
  const [{ empty }] = (await query(`SELECT NOT EXISTS (SELECT 1 FROM ${table}) AS empty`)) as {
    empty: boolean;
  }[];
  if (!empty) return;
  try {
    await query('DELETE FROM pg_catalog.pg_statistic WHERE starelid = $1::regclass', [table]);
  } catch (error) {
    if (codeOf(error) !== INSUFFICIENT_PRIVILEGE) throw error;
    const [{ clear }] = (await query(
      "SELECT to_regprocedure('pg_catalog.pg_clear_attribute_stats(text, text, text, boolean)') IS NOT NULL AS clear",
    )) as { clear: boolean }[];
    if (!clear) return;
    await query(
      `SELECT pg_catalog.pg_clear_attribute_stats(current_schema(), $1, a.attname, s.stainherit)
         FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_stats s
           ON s.schemaname = current_schema() AND s.tablename = $1 AND s.attname = a.attname
        WHERE a.attrelid = $1::regclass`,
      [table],
    );
  }
}

function codeOf(error: unknown): unknown {
  const inner = (error as { driverError?: { code?: unknown } }).driverError;
  return inner?.code ?? (error as { code?: unknown }).code;
}

/** The retention job's catch-up (ErasurePurge) over the database: in the background, patient. */
export class SqlErasurePurge implements ErasurePurge {
  constructor(private readonly dataSource: DataSource) {}

  purgeErasures(): Promise<boolean> {
    return withDatabaseErrors(() => purgeErasedValues(this.dataSource, CATCHING_UP));
  }
}

/**
 * The purges that follow erasures made over HTTP (RunOptions `in-background`): one at a time, an
 * erasure committed while one runs bringing another after it. A purge that gives up is told to
 * `onFailure`; the erasure stays counted, and the retention job purges it within the hour.
 */
export class BackgroundErasurePurge {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  request(): void {
    if (this.stopped) return;
    this.again = true;
    if (this.running !== null) return;
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  /** Resolves once no purge runs (the service's shutdown, tests). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Ends the purge in progress at its next pause, and starts no other. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }

  private async loop(): Promise<void> {
    while (this.again && !this.stopped) {
      this.again = false;
      try {
        await purgeErasedValues(this.dataSource, { ...IN_BACKGROUND, stopped: () => this.stopped });
      } catch (error) {
        if (!this.stopped) this.onFailure(error);
      }
    }
  }
}
