import type { Account } from '../../domain/account';
import type { ApiKey } from '../../domain/api-key';
import type { Permission } from '../../domain/permission';

export interface NewApiKey {
  accountId: number;
  name: string | null;
  prefix: string;
  tokenHash: string;
  permissions: Permission[];
  createdAt: Date;
  expiresAt: Date | null;
}

/** A key found by its token hash, with what is needed to authorise a request. */
export interface KeyCredential {
  key: ApiKey;
  account: Pick<Account, 'personId' | 'username' | 'permissions' | 'disabled' | 'role'>;
}

export interface ApiKeyRepository {
  create(key: NewApiKey): Promise<ApiKey>;
  /** One indexed lookup: the key with this token hash, revoked or not, and its account. */
  findByTokenHash(tokenHash: string): Promise<KeyCredential | null>;
  findById(id: number): Promise<ApiKey | null>;
  /** The account's keys neither revoked nor expired at `now`, oldest first. */
  listActive(accountId: number, now: Date): Promise<ApiKey[]>;
  countActive(accountId: number, now: Date): Promise<number>;
  /** Every key the account was ever issued, revoked and expired ones too, oldest first. */
  listAll(accountId: number): Promise<ApiKey[]>;
  /** Replaces the key's permissions; only ever to take some away (RevokePermission). */
  setPermissions(id: number, permissions: Permission[]): Promise<void>;
  /** Marks the key revoked at `at` (idempotent) and returns it. */
  revoke(id: number, at: Date): Promise<ApiKey>;
  /** Clears the name of every key the account was issued (SPEC §8, erasure); the caller revokes them. */
  forgetNames(accountId: number): Promise<void>;
  /** Records that the key was used at `at`, unless a use was recorded less than a minute before it. */
  touch(id: number, at: Date): Promise<void>;
}
