import { createHash } from 'node:crypto';
import bcrypt from 'bcrypt';
import { foldCase } from '../../src/domain/text';
import { BASELINE_SCHEMA } from './bench-database';

/** Statements answering their rows: the bench's PostgreSQL database, or the embedded yardstick's. */
export interface RowQueries {
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
}

export interface BenchAccount {
  username: string;
  password: string;
  permissions: string[];
  admin: boolean;
}

/**
 * Gives the baseline the same accounts the service got from its CLI (same bcrypt cost, so a
 * POST /keys costs the same there), and, when given, a key with the service's token: both
 * servers then accept the very same Authorization header.
 */
export async function addBaselineAccount(
  database: RowQueries,
  account: BenchAccount,
  bcryptCost: number,
  token?: string,
): Promise<void> {
  const hash = await bcrypt.hash(account.password, bcryptCost);
  await database.query(
    `INSERT INTO ${BASELINE_SCHEMA}.people (role, first_name, last_name, first_name_folded, last_name_folded,
                                            username, password_hash, permissions)
     VALUES ($1, $2, $2, $3, $3, $2, $4, $5)`,
    [
      account.admin ? 'admin' : 'member',
      account.username,
      foldCase(account.username),
      hash,
      account.permissions,
    ],
  );
  if (token !== undefined) await addBaselineKey(database, account.username, token);
}

/**
 * A key with `token` (the service's own) for the baseline's account `username`, with the
 * account's permissions, unless it has that key already; whether it has it now (false: no such
 * account).
 */
export async function addBaselineKey(
  database: RowQueries,
  username: string,
  token: string,
): Promise<boolean> {
  const hash = createHash('sha256').update(token, 'utf8').digest('hex');
  await database.query(
    `INSERT INTO ${BASELINE_SCHEMA}.api_keys (person_id, prefix, token_hash, permissions)
     SELECT id, $1, $2, permissions FROM ${BASELINE_SCHEMA}.people WHERE username = $3
     ON CONFLICT (token_hash) DO NOTHING`,
    [token.slice(0, 8), hash, username],
  );
  const known = await database.query(`SELECT 1 FROM ${BASELINE_SCHEMA}.api_keys WHERE token_hash = $1`, [
    hash,
  ]);
  return known.length > 0;
}
