import { describeAccountRepositoryContract } from './account-repository.contract';
import { describeApiKeyRepositoryContract } from './api-key-repository.contract';
import { describeAuditLogContract } from './audit-log.contract';
import { describeChangeLogContract } from './change-log.contract';
import { type OpenAdapter, useAdapter } from './contract-adapter';
import { describePersonRepositoryContract } from './person-repository.contract';
import { describePersonSearchContract } from './person-search.contract';
import { describeSyncContract } from './sync.contract';
import { describeUnitOfWorkContract } from './unit-of-work.contract';

/**
 * The whole contract of the persistence ports (src/application/ports) against one adapter, opened
 * once for all of it. `open` null skips the suite, saying why in `name`.
 */
export function describePersistenceContract(name: string, open: OpenAdapter | null): void {
  (open === null ? describe.skip : describe)(name, () => {
    const adapter = useAdapter(open ?? (() => Promise.reject(new Error(name))));
    describePersonSearchContract(adapter);
    describePersonRepositoryContract(adapter);
    describeSyncContract(adapter);
    describeAccountRepositoryContract(adapter);
    describeApiKeyRepositoryContract(adapter);
    describeAuditLogContract(adapter);
    describeUnitOfWorkContract(adapter);
    describeChangeLogContract(adapter);
  });
}
