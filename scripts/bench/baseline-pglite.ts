import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { BASELINE_SCHEMA } from './bench-database';

/**
 * The embedded yardstick's database: PGlite in the raw server's own process, with the baseline's
 * schema (pg_trgm for the name indexes, as on PostgreSQL) on its search path.
 */
export async function openBaselinePglite(dataDir: string): Promise<PGlite> {
  const pglite = new PGlite(dataDir, { extensions: { pg_trgm } });
  await pglite.waitReady;
  await pglite.exec(`SET search_path = ${BASELINE_SCHEMA}, public`);
  return pglite;
}
