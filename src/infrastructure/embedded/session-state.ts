import type { PGlite } from '@electric-sql/pglite';
import { errorIn, simpleQuery } from './pg-wire';
import { SERVICE_STATEMENT_PREFIX } from '../persistence/pool-queries';

/**
 * What a connection of another process (psql, pg_dump, the command-line tool) has set in PGlite's
 * one session that outlives a transaction: its settings (SET, set_config), its session user
 * (SET SESSION AUTHORIZATION) and its role (SET ROLE). Kept aside while others have the session,
 * and put back when it is this connection's turn again, so that the connection sees its own
 * settings and no one else's.
 */
export interface SessionState {
  /** Name and value, in the order they are applied: settings, then session user, then role. */
  readonly assignments: readonly (readonly [string, string])[];
}

/**
 * PGlite starts as `postgres` (it ignores the user a client names in its startup packet), and
 * `SET SESSION AUTHORIZATION DEFAULT` does not reliably go back to it in PGlite: so, by name.
 */
export const SESSION_USER = 'postgres';

/**
 * The service's own search path: `public`, then the temporary schema explicitly last. Left
 * implicit, the temporary schema is searched first, and a tool's `CREATE TEMP TABLE api_keys`
 * would stand in for the real table in every query of the service. Given to PGlite at start
 * (createDataSource), so that it is also what RESET ALL goes back to.
 */
export const SERVICE_SEARCH_PATH = 'public, pg_temp';

/**
 * What a connection of another process starts with: PostgreSQL's own default search path, so that
 * psql behaves there as on any PostgreSQL (a temporary table is found before a permanent one).
 */
export const VISITOR_START: SessionState = { assignments: [['search_path', '"$user", public']] };

// Every name schema-qualified: the connection whose state is read may have any search path.
const CAPTURE = `SELECT session_user AS "user", pg_catalog.current_setting('role') AS role,
  (SELECT coalesce(pg_catalog.json_agg(pg_catalog.json_build_array(name, setting)) FILTER (WHERE source = 'session'), '[]')
     FROM pg_catalog.pg_settings) AS settings`;

// Back to the service's user first (which also ends any role), so that RESET ALL may reset
// settings only a superuser may change.
const RESET = `SELECT pg_catalog.set_config('session_authorization', '${SESSION_USER}', false); RESET ALL`;

// What else a connection can leave in the session beyond its settings; run when the last
// connection of another process has gone. Of these the service uses only prepared statements,
// under names of its own (PoolQueries): those stay.
const DISCARD_LEFTOVERS = `CLOSE ALL; UNLISTEN *; SELECT pg_catalog.pg_advisory_unlock_all(); DISCARD TEMP;
  DO $$DECLARE s text; BEGIN
    FOR s IN SELECT name FROM pg_catalog.pg_prepared_statements
              WHERE name NOT LIKE '${SERVICE_STATEMENT_PREFIX.replace(/_/g, '\\_')}%' LOOP
      EXECUTE pg_catalog.format('DEALLOCATE %I', s);
    END LOOP;
  END$$`;

/**
 * Reads what the connection that had the session set. Only while the session is idle (no
 * transaction) and held (see PgliteGate). About 5 ms (pg_settings computes every setting), so
 * only after a turn that may have changed something (see mayChangeSession).
 */
export async function captureState(pglite: PGlite): Promise<SessionState> {
  const { rows } = await pglite.query<{ user: string; role: string; settings: [string, string][] }>(CAPTURE);
  const { user, role, settings } = rows[0];
  const assignments: [string, string][] = [...settings];
  if (user !== SESSION_USER) assignments.push(['session_authorization', user]);
  if (role !== 'none') assignments.push(['role', role]);
  return { assignments };
}

/**
 * Puts the session back to the service's state: its user, no role, every setting as PGlite
 * started. Whatever the last connection did, known or not: a fraction of a millisecond.
 */
export async function resetToService(pglite: PGlite): Promise<void> {
  await run(pglite, RESET);
}

/** Puts a connection's state back, on the service's state (as resetToService leaves it). */
export async function applyState(pglite: PGlite, state: SessionState): Promise<void> {
  if (state.assignments.length === 0) return;
  // One statement, run in order. Literals are safe here: the service's state has
  // standard_conforming_strings on, so only the quote needs doubling.
  const calls = state.assignments.map(
    ([name, value]) => `pg_catalog.set_config(${literal(name)}, ${literal(value)}, false)`,
  );
  await run(pglite, `SELECT ${calls.join(', ')}`);
}

/** Ends what connections of other processes created that lasts beyond a transaction. */
export async function discardLeftovers(pglite: PGlite): Promise<void> {
  await run(pglite, DISCARD_LEFTOVERS);
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * Runs the gate's own statements straight on the protocol: PGlite's query() and exec() cost about
 * a millisecond more each, on every turn that passes between a tool and the service.
 */
async function run(pglite: PGlite, sql: string): Promise<void> {
  const chunks: Buffer[] = [];
  await pglite.runExclusive(() =>
    pglite.execProtocolRawStream(simpleQuery(sql), { onRawData: (data) => chunks.push(Buffer.from(data)) }),
  );
  const error = errorIn(Buffer.concat(chunks));
  if (error !== null) throw new Error(`the embedded database refused the gate's statement: ${error}`);
}
