import { type EntityManager, IsNull, LessThanOrEqual, MoreThan, Not, type Repository } from 'typeorm';
import type { ApiKeyRepository, KeyCredential, NewApiKey } from '../../application/ports/api-key-repository';
import type { ApiKey } from '../../domain/api-key';
import { NotFound } from '../../domain/errors';
import type { Permission } from '../../domain/permission';
import type { Role } from '../../domain/person';
import { withDatabaseErrors } from './database-errors';
import { KEY_EVENT_CHANNELS, notifyKeyEvent } from '../credentials/key-events';
import { type ApiKeyRow, ApiKeySchema } from './schemas/api-key-schema';

/** Listed explicitly so that the token hash never leaves this file. */
function toApiKey(row: Omit<ApiKeyRow, 'tokenHash'>): ApiKey {
  return {
    id: row.id,
    accountId: row.personId,
    name: row.name,
    prefix: row.prefix,
    permissions: row.permissions as Permission[],
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}

interface CredentialRecord {
  id: number;
  person_id: number;
  name: string | null;
  prefix: string;
  permissions: Permission[];
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  username: string;
  account_permissions: Permission[];
  disabled: boolean;
  role: Role;
}

export class SqlApiKeyRepository implements ApiKeyRepository {
  private readonly keys: Repository<ApiKeyRow>;

  constructor(private readonly manager: EntityManager) {
    this.keys = manager.getRepository(ApiKeySchema);
  }

  create(key: NewApiKey): Promise<ApiKey> {
    return withDatabaseErrors(async () => {
      const row = {
        personId: key.accountId,
        name: key.name,
        prefix: key.prefix,
        tokenHash: key.tokenHash,
        permissions: key.permissions,
        createdAt: key.createdAt,
        expiresAt: key.expiresAt,
        lastUsedAt: null,
        revokedAt: null,
      };
      const result = await this.keys.insert(row);
      return toApiKey({ id: result.identifiers[0].id as number, ...row });
    });
  }

  // The hot path of every request: one indexed lookup that also brings the account (two tables: SQL).
  findByTokenHash(tokenHash: string): Promise<KeyCredential | null> {
    return withDatabaseErrors(async () => {
      const rows: CredentialRecord[] = await this.manager.query(
        `SELECT k.id, k.person_id, k.name, k.prefix, k.permissions, k.created_at, k.expires_at,
                k.last_used_at, k.revoked_at,
                p.username, p.permissions AS account_permissions, p.disabled, p.role
           FROM api_keys k JOIN people p ON p.id = k.person_id
          WHERE k.token_hash = $1 AND p.username IS NOT NULL`,
        [tokenHash],
      );
      if (rows.length === 0) return null;
      const row = rows[0];
      return {
        key: toApiKey({
          id: row.id,
          personId: row.person_id,
          name: row.name,
          prefix: row.prefix,
          permissions: row.permissions,
          createdAt: row.created_at,
          expiresAt: row.expires_at,
          lastUsedAt: row.last_used_at,
          revokedAt: row.revoked_at,
        }),
        account: {
          personId: row.person_id,
          username: row.username,
          permissions: row.account_permissions,
          disabled: row.disabled,
          role: row.role,
        },
      };
    });
  }

  findById(id: number): Promise<ApiKey | null> {
    return withDatabaseErrors(async () => {
      const row = await this.keys.findOneBy({ id });
      return row ? toApiKey(row) : null;
    });
  }

  listActive(accountId: number, now: Date): Promise<ApiKey[]> {
    return withDatabaseErrors(async () => {
      const rows = await this.keys.find({
        where: this.active(accountId, now),
        order: { createdAt: 'ASC', id: 'ASC' },
      });
      return rows.map(toApiKey);
    });
  }

  listAll(accountId: number): Promise<ApiKey[]> {
    return withDatabaseErrors(async () => {
      const rows = await this.keys.find({
        where: { personId: accountId },
        order: { createdAt: 'ASC', id: 'ASC' },
      });
      return rows.map(toApiKey);
    });
  }

  countActive(accountId: number, now: Date): Promise<number> {
    return withDatabaseErrors(() => this.keys.count({ where: this.active(accountId, now) }));
  }

  setPermissions(id: number, permissions: Permission[]): Promise<void> {
    return withDatabaseErrors(async () => {
      await this.keys.update({ id }, { permissions });
    });
  }

  forgetNames(accountId: number): Promise<void> {
    return withDatabaseErrors(async () => {
      await this.keys.update({ personId: accountId, name: Not(IsNull()) }, { name: null });
    });
  }

  revoke(id: number, at: Date): Promise<ApiKey> {
    return withDatabaseErrors(async () => {
      // Only a first revocation sets the time: revoking again changes nothing.
      await this.keys.update({ id, revokedAt: IsNull() }, { revokedAt: at });
      // Delivered at commit: tells every instance to forget the key it may have cached.
      await notifyKeyEvent(this.manager, KEY_EVENT_CHANNELS.keyRevoked, id);
      const row = await this.keys.findOneBy({ id });
      if (!row) throw new NotFound(`key ${id} not found`);
      return toApiKey(row);
    });
  }

  /**
   * The use case already writes at most once a minute per key per instance; the condition keeps it
   * so across instances too, and never moves last_used_at backwards.
   */
  touch(id: number, at: Date): Promise<void> {
    return withDatabaseErrors(async () => {
      const minuteBefore = new Date(at.getTime() - 60_000);
      await this.keys.update(
        [
          { id, lastUsedAt: IsNull() },
          { id, lastUsedAt: LessThanOrEqual(minuteBefore) },
        ],
        { lastUsedAt: at },
      );
    });
  }

  /** Not revoked, and without an expiry or expiring after `now`. */
  private active(accountId: number, now: Date) {
    return [
      { personId: accountId, revokedAt: IsNull(), expiresAt: IsNull() },
      { personId: accountId, revokedAt: IsNull(), expiresAt: MoreThan(now) },
    ];
  }
}
