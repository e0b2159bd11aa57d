import type { Clock } from '../../application/ports/clock';
import { InMemoryAccountRepository } from './in-memory-account-repository';
import { InMemoryApiKeyRepository } from './in-memory-api-key-repository';
import { InMemoryAuditLog } from './in-memory-audit-log';
import { InMemoryPersonRepository } from './in-memory-person-repository';
import { InMemoryStore } from './in-memory-store';
import { InMemoryUnitOfWork } from './in-memory-unit-of-work';

/**
 * The persistence ports over one shared in-memory store, for unit tests of use cases. They keep
 * the ports' contracts (uniqueness, versions, ordering, all-or-nothing units) so that a use case
 * tested here behaves the same on the database.
 */
export class InMemoryDirectory {
  readonly store = new InMemoryStore();
  readonly people = new InMemoryPersonRepository(this.store);
  readonly accounts = new InMemoryAccountRepository(this.store);
  readonly keys = new InMemoryApiKeyRepository(this.store);
  readonly audit: InMemoryAuditLog;
  readonly unitOfWork: InMemoryUnitOfWork;

  /** The clock stamps audit entries; tests pass their fake one. */
  constructor(clock: Pick<Clock, 'now'> = { now: () => new Date() }) {
    this.audit = new InMemoryAuditLog(this.store, clock);
    this.unitOfWork = new InMemoryUnitOfWork(this.store, {
      people: this.people,
      accounts: this.accounts,
      keys: this.keys,
      audit: this.audit,
    });
  }
}
