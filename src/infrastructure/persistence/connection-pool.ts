import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The node-postgres Pool under a DataSource, or undefined while it is not connected (before
 * initialize, after destroy). TypeORM's PostgreSQL driver keeps it as `master`, which its types do
 * not show: this is the one place that reaches in for it. On PGlite it is a pool of one connection
 * over the embedded database.
 */
export function connectionPool(dataSource: DataSource): Pool | undefined {
  if (!dataSource.isInitialized) return undefined;
  return (dataSource.driver as unknown as { master?: Pool }).master;
}
