import type { EntityManager } from 'typeorm';
import type { Transaction } from '../../application/ports/unit-of-work';
import { TypeOrmAccountRepository } from './typeorm-account-repository';
import { TypeOrmApiKeyRepository } from './typeorm-api-key-repository';
import { TypeOrmAuditLog } from './typeorm-audit-log';
import { type StreamSharing, TypeOrmPersonRepository } from './typeorm-person-repository';

/**
 * The TypeORM adapters of every repository port, all bound to one manager (and its transaction).
 * `streaming` makes the streams of every repository given it share the database with lookups.
 */
export function createRepositories(
  manager: EntityManager,
  options: { streaming?: StreamSharing } = {},
): Transaction {
  return {
    people: new TypeOrmPersonRepository(manager, options.streaming),
    accounts: new TypeOrmAccountRepository(manager),
    keys: new TypeOrmApiKeyRepository(manager),
    audit: new TypeOrmAuditLog(manager),
  };
}
