import type {
  AccountChanges,
  AccountRepository,
  AccountSummary,
  NewAccount,
} from '../../application/ports/account-repository';
import type { Account } from '../../domain/account';
import type { CredentialChanges } from './credential-cache';

/**
 * An AccountRepository that reports every account update to the credential cache: a cached key
 * carries its account's disabled flag and permissions, so disabling an account or revoking a
 * permission must reach the cache as surely as revoking a key.
 */
export class CachingAccountRepository implements AccountRepository {
  constructor(
    private readonly inner: AccountRepository,
    private readonly changes: CredentialChanges,
  ) {}

  async update(personId: number, changes: AccountChanges): Promise<void> {
    try {
      await this.inner.update(personId, changes);
    } finally {
      this.changes.accountChanged(personId);
    }
  }

  async erase(personId: number): Promise<void> {
    try {
      await this.inner.erase(personId);
    } finally {
      this.changes.accountChanged(personId);
    }
  }

  findByUsername(username: string): Promise<Account | null> {
    return this.inner.findByUsername(username);
  }

  findByPersonId(personId: number): Promise<Account | null> {
    return this.inner.findByPersonId(personId);
  }

  create(account: NewAccount): Promise<Account> {
    return this.inner.create(account);
  }

  list(now: Date): Promise<AccountSummary[]> {
    return this.inner.list(now);
  }
}
