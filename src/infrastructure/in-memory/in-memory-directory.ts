import type { Clock } from '../../application/ports/clock';
import { InMemoryAccountRepository } from './in-memory-account-repository';
import { InMemoryApiKeyRepository } from './in-memory-api-key-repository';
import { InMemoryAuditLog } from './in-memory-audit-log';
import { InMemoryChangeFeed } from './in-memory-change-feed';
import { InMemoryChangeLog } from './in-memory-change-log';
import { InMemoryMembershipCalendar } from './in-memory-membership-calendar';
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
  readonly people: InMemoryPersonRepository;
  readonly accounts = new InMemoryAccountRepository(this.store);
  readonly keys = new InMemoryApiKeyRepository(this.store);
  readonly audit: InMemoryAuditLog;
  readonly changes: InMemoryChangeLog;
  readonly calendar = new InMemoryMembershipCalendar(this.store);
  readonly feed = new InMemoryChangeFeed(this.store);
  readonly unitOfWork: InMemoryUnitOfWork;

  /** The clock stamps audit entries and changes; tests pass their fake one. */
  constructor(clock: Pick<Clock, 'now'> = { now: () => new Date() }) {
    this.people = new InMemoryPersonRepository(this.store, clock);
    this.audit = new InMemoryAuditLog(this.store, clock);
    this.changes = new InMemoryChangeLog(this.store, clock, false);
    const changesAtCommit = new InMemoryChangeLog(this.store, clock, true);
    this.unitOfWork = new InMemoryUnitOfWork(
      this.store,
      {
        people: this.people,
        accounts: this.accounts,
        keys: this.keys,
        audit: this.audit,
        changes: changesAtCommit,
        calendar: this.calendar,
      },
      changesAtCommit,
    );
  }
}
