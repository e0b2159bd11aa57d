import type { ApiKeyRepository, KeyCredential, NewApiKey } from '../../application/ports/api-key-repository';
import type { ApiKey } from '../../domain/api-key';
import type { Permission } from '../../domain/permission';
import type { CredentialCache, CredentialChanges } from './credential-cache';

/**
 * An ApiKeyRepository whose token lookups go through the credential cache and whose revocations
 * are reported to it. Outside a transaction `cache` is given and changes apply at once; inside one
 * `cache` is null (reads must see the transaction's own writes) and changes are collected until
 * the transaction is over (see CachingUnitOfWork).
 */
export class CachingApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly inner: ApiKeyRepository,
    private readonly cache: CredentialCache | null,
    private readonly changes: CredentialChanges,
  ) {}

  findByTokenHash(tokenHash: string): Promise<KeyCredential | null> {
    if (this.cache === null) return this.inner.findByTokenHash(tokenHash);
    return this.cache.load(tokenHash, () => this.inner.findByTokenHash(tokenHash));
  }

  async revoke(id: number, at: Date): Promise<ApiKey> {
    try {
      return await this.inner.revoke(id, at);
    } finally {
      // Even when the call failed: the row may have changed before the failure was reported.
      this.changes.keyRevoked(id);
    }
  }

  // No cache entry to forget here: the permissions of a key change only with its account's, whose
  // update already makes every key of the account be read again.
  setPermissions(id: number, permissions: Permission[]): Promise<void> {
    return this.inner.setPermissions(id, permissions);
  }

  create(key: NewApiKey): Promise<ApiKey> {
    return this.inner.create(key);
  }

  findById(id: number): Promise<ApiKey | null> {
    return this.inner.findById(id);
  }

  listActive(accountId: number, now: Date): Promise<ApiKey[]> {
    return this.inner.listActive(accountId, now);
  }

  listAll(accountId: number): Promise<ApiKey[]> {
    return this.inner.listAll(accountId);
  }

  countActive(accountId: number, now: Date): Promise<number> {
    return this.inner.countActive(accountId, now);
  }

  forgetNames(accountId: number): Promise<void> {
    return this.inner.forgetNames(accountId);
  }

  touch(id: number, at: Date): Promise<void> {
    return this.inner.touch(id, at);
  }
}
