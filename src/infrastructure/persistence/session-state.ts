import type { PGlite } from '@electric-sql/pglite';

/**
 * What a connection of another process (psql, pg_dump, the command-line tool) has set in PGlite's
 * one session that outlives a transaction: its settings (SET, set_config), its session user
 * (SET SESSION AUTHORIZATION) and its role (SET ROLE). Kept aside while others have the session,
 * and put back when it is this connection's turn again, so that the connection sees its own
 * settings and no one else's.
 */
export interface SessionState {
  /** Name and value, in the order they are applied: settings, then session user, then role. */
  readonly assignments: readonly [string, string][];
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
// Statements of one simple Query run in order, in one implicit transaction.
const CAPTURE_AND_RESET = `
SELECT session_user AS "user", pg_catalog.current_setting('role') AS role;
SELECT pg_catalog.set_config('session_authorization', '${SESSION_USER}', false);
SELECT coalesce(pg_catalog.json_agg(pg_catalog.json_build_array(name, setting)) FILTER (WHERE source = 'session'), '[]') AS settings
  FROM pg_catalog.pg_settings;
RESET ALL`;

// In the order given: each set_config runs as the array's elements come.
const APPLY = `SELECT pg_catalog.count(pg_catalog.set_config(a->>0, a->>1, false))
  FROM pg_catalog.json_array_elements($1::pg_catalog.json) AS assignment(a)`;

// What else a connection can leave in the session beyond its settings; run when the last
// connection of another process has gone (the service itself uses none of these).
const DISCARD_LEFTOVERS = [
  'CLOSE ALL',
  'UNLISTEN *',
  'SELECT pg_catalog.pg_advisory_unlock_all()',
  'DEALLOCATE ALL',
  'DISCARD TEMP',
].join('; ');

/**
 * Reads what the connection that had the session set, then puts the session back to the
 * service's state: its user, no role, every setting as PGlite started (RESET ALL). Only at a
 * moment when the session is idle (no transaction), with the session held (see PgliteGate).
 */
export async function captureAndReset(pglite: PGlite): Promise<SessionState> {
  const [identity, , current] = await pglite.exec(CAPTURE_AND_RESET);
  const { user, role } = identity.rows[0] as { user: string; role: string };
  const settings = (current.rows[0] as { settings: [string, string][] }).settings;
  const assignments: [string, string][] = [...settings];
  if (user !== SESSION_USER) assignments.push(['session_authorization', user]);
  if (role !== 'none') assignments.push(['role', role]);
  return { assignments };
}

/** Puts a connection's state back (on the service's state, as captureAndReset leaves it). */
export async function applyState(pglite: PGlite, state: SessionState): Promise<void> {
  if (state.assignments.length === 0) return;
  await pglite.query(APPLY, [JSON.stringify(state.assignments)]);
}

/** Ends what connections of other processes created that lasts beyond a transaction. */
export async function discardLeftovers(pglite: PGlite): Promise<void> {
  await pglite.exec(DISCARD_LEFTOVERS);
}
