import type { DataSource, EntityManager } from 'typeorm';
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
 * How long a rewrite waits for the lock on a table before giving way: while it waits, every
 * request that touches the table queues behind it, so it rather gives up, and tries again.
 */
const LOCK_TIMEOUT = '2s';
const ATTEMPTS = 5;
const LOCK_NOT_AVAILABLE = '55P03';
const INSUFFICIENT_PRIVILEGE = '42501';

/** Counts an erasure in the erasing transaction: the purge after it (or the retention job) catches up. */
export async function countErasure(manager: EntityManager): Promise<void> {
  await manager.query('UPDATE directory_meta SET erasures = erasures + 1');
}

/**
 * Rewrites what held erased values, when some erasure has not been purged yet; answers whether it
 * did. Each table is rewritten in its own statement (VACUUM FULL), holding its exclusive lock
 * only while that table is copied (docs/decisions.md, "Erased means gone"); on PostgreSQL it gives
 * way to a lock held elsewhere after 2 s and tries again, rather than queue every request behind
 * it. Then the planner's statistics of those tables are gathered again, and pg_statistic, whose
 * old rows held their most common values and histograms, is rewritten too. On PostgreSQL a role that does not own
 * pg_statistic is told so by a warning and the rest is done: its old rows go at autovacuum's pace
 * (the README says so). The WAL keeps what it logged until it is recycled.
 */
export async function purgeErasedValues(dataSource: DataSource): Promise<boolean> {
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
      return dataSource.query(sql, parameters);
    });
  } else {
    // A connection of its own, so that its lock timeout is nobody else's; the pool's other
    // connections go on serving.
    const runner = dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.query(`SET lock_timeout = '${LOCK_TIMEOUT}'`);
      await purge((sql, parameters) => withRetries(() => runner.query(sql, parameters)));
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

/** Runs `statement` again when it gave way to another session's lock, after a growing pause. */
async function withRetries<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if (attempt >= ATTEMPTS || codeOf(error) !== LOCK_NOT_AVAILABLE) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
}

function codeOf(error: unknown): unknown {
  const inner = (error as { driverError?: { code?: unknown } }).driverError;
  return inner?.code ?? (error as { code?: unknown }).code;
}

/** The retention job's catch-up (ErasurePurge) over the database. */
export class SqlErasurePurge implements ErasurePurge {
  constructor(private readonly dataSource: DataSource) {}

  purgeErasures(): Promise<boolean> {
    return withDatabaseErrors(() => purgeErasedValues(this.dataSource));
  }
}
