import type { EntityManager } from 'typeorm';
import type { Transaction } from '../../application/ports/unit-of-work';
import { TypeOrmAccountRepository } from './sql-account-repository';
import { TypeOrmApiKeyRepository } from './sql-api-key-repository';
import { TypeOrmAuditLog } from './sql-audit-log';
import { TypeOrmChangeLog } from './sql-change-log';
import { TypeOrmMembershipCalendar } from './sql-membership-calendar';
import { type StreamSharing, TypeOrmPersonRepository } from './sql-person-repository';

export interface TypeOrmRepositories extends Transaction {
  /** Written by TypeOrmUnitOfWork just before it commits; see TypeOrmChangeLog. */
  changes: TypeOrmChangeLog;
}

/**
 * The TypeORM adapters of every repository port, all bound to one manager (and its transaction).
 * `streaming` makes the streams of every repository given it share the database with lookups.
 * `preparedLookups`: lookups of people run as named prepared statements (PostgreSQL only).
 * `changesAtCommit`: the manager is a unit of work's transaction, which writes the changes
 * recorded through them when it commits (see TypeOrmChangeLog).
 */
export function createRepositories(
  manager: EntityManager,
  options: {
    streaming?: StreamSharing;
    preparedLookups?: boolean;
    changesAtCommit?: boolean;
    /** Told when people are erased (see TypeOrmUnitOfWork). */
    onErase?: () => void;
  } = {},
): TypeOrmRepositories {
  return {
    people: new TypeOrmPersonRepository(manager, options.streaming, options.preparedLookups, {
      inTransaction: options.changesAtCommit === true,
      onErase: options.onErase,
    }),
    accounts: new TypeOrmAccountRepository(manager),
    keys: new TypeOrmApiKeyRepository(manager),
    audit: new TypeOrmAuditLog(manager),
    changes: new TypeOrmChangeLog(manager, options.changesAtCommit === true),
    calendar: new TypeOrmMembershipCalendar(manager),
  };
}
