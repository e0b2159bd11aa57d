import type { QueryRunner } from 'typeorm';
/**
 * The backup file (docs/decisions.md, "Backup and restore"): JSON Lines, so that a directory of any
 * size is written and read a row at a time, and so that the same file loads into PGlite and into
 * any PostgreSQL from 15 on. Each line is one of:
 * - the first: the header, an object (BackupHeader);
 * - `["table", name, [column, ...]]`: the rows of that table follow, one object a line, as
 *   PostgreSQL's row_to_json writes them (timestamps in UTC with microseconds, arrays as arrays);
 * - `["sequences", [{name, last_value, is_called}, ...]]`;
 * - the last: `["end", {"rows": {table: count}, "sha256": hex}]`, the hash of every byte before it,
 *   so that a file cut short or changed is refused rather than half restored.
 */
export const BACKUP_FORMAT = 'membership-directory-backup';

/** Raised when the file changes shape; restore refuses a backup of a later version. */
export const BACKUP_VERSION = 1;

/** TypeORM's table of applied migrations (its default name, which the DataSource keeps). */
export const MIGRATIONS_TABLE = 'migrations';

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: number;
  created_at: string;
  /** Where it was made: the embedded database or PostgreSQL. */
  database: 'pglite' | 'postgres';
  server_version: string;
  /** The directory's id, which its change cursors carry: a restored directory keeps it. */
  directory_id: string;
  /** The migrations applied to the database backed up, in the order they were applied. */
  migrations: string[];
}

export interface BackupSequence {
  name: string;
  /** bigint, as text: JSON numbers lose precision past 2^53. */
  last_value: string;
  is_called: boolean;
}

export interface BackupEnd {
  rows: Record<string, number>;
  sha256: string;
}

/**
 * Every table the migrations make, in the order restore loads them (a table after those its
 * foreign keys name), with the key that orders its rows in the file. A migration that adds a table
 * adds it here too: test/integration/backup/backup-coverage.test.ts fails until it does. Tables
 * that a later migration dropped stay listed, so that a database not yet migrated that far is
 * backed up whole too; a backup holds the listed tables its database has.
 */
export const BACKUP_TABLES: readonly { name: string; key: string }[] = [
  { name: MIGRATIONS_TABLE, key: 'id' },
  { name: 'directory_meta', key: 'one' },
  { name: 'clubs', key: 'id' },
  { name: 'people', key: 'id' },
  { name: 'contacts', key: 'id' },
  { name: 'memberships', key: 'id' },
  { name: 'api_keys', key: 'id' },
  { name: 'audit_entries', key: 'id' },
  { name: 'changes', key: 'seq' },
  { name: 'webhook_subscriptions', key: 'id' },
  { name: 'webhook_deliveries', key: 'id' },
  { name: 'webhook_attempts', key: 'id' },
  // Dropped by WebhookSubscriptionCursors1767744000000.
  { name: 'webhook_dispatcher', key: 'id' },
];

/**
 * Every sequence the migrations make: the next person id, the next change seq and the others go
 * on where the original's were. Listed and checked like the tables.
 */
export const BACKUP_SEQUENCES: readonly string[] = [
  `${MIGRATIONS_TABLE}_id_seq`,
  'clubs_id_seq',
  'people_id_seq',
  'contacts_id_seq',
  'memberships_id_seq',
  'api_keys_id_seq',
  'audit_entries_id_seq',
  'changes_seq',
  'webhook_subscriptions_id_seq',
  'webhook_deliveries_id_seq',
  'webhook_attempts_id_seq',
];

/**
 * The backup cannot be made or loaded: a file that is no backup, is cut short, is newer than this
 * code, or a database that is not empty. The command line reports its message as one line.
 */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** The catalog's tables or sequences of the current schema (the search path's first). */
export function relationsSql(kinds: string): string {
  return `SELECT c.relname AS name FROM pg_class c
           WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
             AND c.relkind IN (${kinds})
           ORDER BY c.relname`;
}

/** The names of the current schema's relations of these kinds. */
export async function relations(runner: QueryRunner, kinds: string): Promise<Set<string>> {
  const rows: { name: string }[] = await runner.query(relationsSql(kinds));
  return new Set(rows.map((row) => row.name));
}

export const TABLE_KINDS = "'r', 'p'";
export const SEQUENCE_KINDS = "'S'";

/** A table's columns in their order, for one table named by $1 in the current schema. */
export const COLUMNS_SQL = `
  SELECT a.attname AS name FROM pg_attribute a
   WHERE a.attrelid = (SELECT c.oid FROM pg_class c
                        WHERE c.relname = $1
                          AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()))
     AND a.attnum > 0 AND NOT a.attisdropped
   ORDER BY a.attnum`;

/** A double-quoted identifier; the names come from the catalog or from the lists above. */
export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
