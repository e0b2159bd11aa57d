import type { NewAuditEntry } from '../../domain/audit-entry';
import type { Person, PersonChanges } from '../../domain/person';
import type { AccountRepository } from './account-repository';
import type { ApiKeyRepository } from './api-key-repository';
import type { AuditLog } from './audit-log';
import type { ChangeLog, NewChange } from './change-log';
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

/** One person's update as a use case decided it, with what it leaves in the audit log and the feed. */
export interface PersonUpdate {
  id: number;
  /** The version the update was decided on. */
  version: number;
  changes: PersonChanges;
  audit: NewAuditEntry[];
  change: NewChange;
}

export interface RunOptions {
  /**
   * When the work erased people: `before-return` (the default, the command line's promise of SPEC
   * §8) resolves only once the store holds their erased values nowhere any more; `in-background`
   * resolves at the commit and leaves that rewrite to the store's background, which waits its turn
   * behind other sessions rather than hold anyone up (an HTTP answer tells what happened: erased).
   */
  purge?: 'before-return' | 'in-background';
}

export interface UnitOfWork {
  /**
   * Runs `work` in one transaction; commits when it resolves, rolls back when it throws. When the
   * work erased people (PersonRepository.erase), it resolves only once the store holds their
   * erased values nowhere any more (SPEC §8: old row versions, index entries, statistics), unless
   * `options.purge` says `in-background`.
   */
  run<T>(work: (tx: Transaction) => Promise<T>, options?: RunOptions): Promise<T>;
  /**
   * Writes the update (a new version), its audit entries and its change together, all or nothing,
   * and commits them at once, on its own: not a step of `run`, and no transaction spans it and the
   * read it was decided on (a database does it in one statement, holding no lock between round
   * trips). Provided the person is still visible (neither an admin nor erased) and at
   * `update.version`, answers the person as updated; otherwise null, writing nothing (someone
   * changed them meanwhile: the caller reads them again and decides anew). Throws Conflict when
   * chat_id is taken.
   */
  commitPersonUpdate(update: PersonUpdate): Promise<Person | null>;
}
