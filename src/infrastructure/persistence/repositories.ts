import type { EntityManager } from 'typeorm';
import type { Transaction } from '../../application/ports/unit-of-work';
import { SqlAccountRepository } from './sql-account-repository';
import { SqlApiKeyRepository } from './sql-api-key-repository';
import { SqlAuditLog } from './sql-audit-log';
import { SqlChangeLog } from './sql-change-log';
import { SqlMembershipCalendar } from './sql-membership-calendar';
import { type StreamSharing, SqlPersonRepository } from './sql-person-repository';

export interface SqlRepositories extends Transaction {
  /** Written by SqlUnitOfWork just before it commits; see SqlChangeLog. */
  changes: SqlChangeLog;
}

/**
 * The SQL adapters of every repository port, all bound to one manager (and its transaction).
 * `streaming` makes the streams of every repository given it share the database with lookups.
 * `preparedLookups`: lookups of people run as named prepared statements (PostgreSQL only).
 * `changesAtCommit`: the manager is a unit of work's transaction, which writes the changes
 * recorded through them when it commits (see SqlChangeLog).
 */
export function createRepositories(
  manager: EntityManager,
  options: {
    streaming?: StreamSharing;
    preparedLookups?: boolean;
    changesAtCommit?: boolean;
    /** Told when people are erased (see SqlUnitOfWork). */
    onErase?: () => void;
  } = {},
): SqlRepositories {
  return {
    people: new SqlPersonRepository(manager, options.streaming, options.preparedLookups, {
      inTransaction: options.changesAtCommit === true,
      onErase: options.onErase,
    }),
    accounts: new SqlAccountRepository(manager),
    keys: new SqlApiKeyRepository(manager),
    audit: new SqlAuditLog(manager),
    changes: new SqlChangeLog(manager, options.changesAtCommit === true),
    calendar: new SqlMembershipCalendar(manager),
  };
}
