import type { Account } from '../../domain/account';
import type { Permission } from '../../domain/permission';
import type { Role } from '../../domain/person';

export interface NewAccount {
  username: string;
  passwordHash: string;
  permissions: Permission[];
  /** Attach credentials to this existing person; otherwise a new person is created. */
  personId?: number;
  /** For a new person: by default the username and "Account". */
  firstName?: string;
  lastName?: string;
  /** For a new person (by default admin), or to change the role of an existing one. */
  role?: Role;
}

export interface AccountChanges {
  passwordHash?: string;
  permissions?: Permission[];
  disabled?: boolean;
}

export interface AccountSummary {
  personId: number;
  username: string;
  role: Role;
  permissions: Permission[];
  disabled: boolean;
  activeKeyCount: number;
}

export interface AccountRepository {
  findByUsername(username: string): Promise<Account | null>;
  findByPersonId(personId: number): Promise<Account | null>;
  /**
   * Returns the account. Throws Conflict when the username is taken or the person has credentials,
   * NotFound when `personId` names nobody.
   */
  create(account: NewAccount): Promise<Account>;
  update(personId: number, changes: AccountChanges): Promise<void>;
  /**
   * Takes the account away for good (SPEC §8, erasure): username, password hash and permissions
   * gone, disabled; the person has no account afterwards, so nothing can enable it again.
   */
  erase(personId: number): Promise<void>;
  /** Every account by username, with its count of active keys at `now`. */
  list(now: Date): Promise<AccountSummary[]>;
}
