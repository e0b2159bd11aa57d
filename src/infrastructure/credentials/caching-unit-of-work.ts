import type { PersonUpdate, RunOptions, Transaction, UnitOfWork } from '../../application/ports/unit-of-work';
import type { Person } from '../../domain/person';
import { CachingAccountRepository } from './caching-account-repository';
import { CachingApiKeyRepository } from './caching-api-key-repository';
import type { CredentialCache, CredentialChanges } from './credential-cache';

/** Changes made inside a transaction, held back until it is over. */
class PendingChanges implements CredentialChanges {
  private readonly keys: number[] = [];
  private readonly accounts: number[] = [];

  keyRevoked(keyId: number): void {
    this.keys.push(keyId);
  }

  accountChanged(accountId: number): void {
    this.accounts.push(accountId);
  }

  applyTo(changes: CredentialChanges): void {
    for (const keyId of this.keys) changes.keyRevoked(keyId);
    for (const accountId of this.accounts) changes.accountChanged(accountId);
  }
}

/**
 * Runs transactions whose key revocations and account changes reach the credential cache once the
 * transaction is over: not before the commit (a lookup in between would read the old row and
 * keep it), and not only at the next notification (this instance must refuse the key at once,
 * before it even answers the revoking request). After a rollback the entries are forgotten all
 * the same, which costs a lookup and nothing else.
 */
export class CachingUnitOfWork implements UnitOfWork {
  constructor(
    private readonly inner: UnitOfWork,
    private readonly cache: CredentialCache,
  ) {}

  async run<T>(work: (tx: Transaction) => Promise<T>, options?: RunOptions): Promise<T> {
    const pending = new PendingChanges();
    try {
      return await this.inner.run(
        (tx) =>
          work({
            ...tx,
            keys: new CachingApiKeyRepository(tx.keys, null, pending),
            accounts: new CachingAccountRepository(tx.accounts, pending),
          }),
        options,
      );
    } finally {
      pending.applyTo(this.cache);
    }
  }

  /** Changes no key or account. */
  commitPersonUpdate(update: PersonUpdate): Promise<Person | null> {
    return this.inner.commitPersonUpdate(update);
  }
}
