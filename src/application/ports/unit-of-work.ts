import type { AccountRepository } from './account-repository';
import type { ApiKeyRepository } from './api-key-repository';
import type { AuditLog } from './audit-log';
import type { ChangeLog } from './change-log';
import type { MembershipCalendar } from './membership-calendar';
import type { PersonRepository } from './person-repository';

/** Repositories bound to one transaction: everything done through them commits or rolls back together. */
export interface Transaction {
  people: PersonRepository;
  accounts: AccountRepository;
  keys: ApiKeyRepository;
  audit: AuditLog;
  /** The change feed's outbox (SPEC §7): every write of people records its changes here. */
  changes: ChangeLog;
  calendar: MembershipCalendar;
}

export interface UnitOfWork {
  /** Runs `work` in one transaction; commits when it resolves, rolls back when it throws. */
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}
