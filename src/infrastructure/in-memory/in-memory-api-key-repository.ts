import type { ApiKeyRepository, KeyCredential, NewApiKey } from '../../application/ports/api-key-repository';
import { type ApiKey, isActive } from '../../domain/api-key';
import { Conflict, NotFound } from '../../domain/errors';
import type { Permission } from '../../domain/permission';
import { copy, type InMemoryStore, type StoredKey } from './in-memory-store';

function toKey(stored: StoredKey): ApiKey {
  const { tokenHash: _tokenHash, ...key } = stored;
  return copy(key);
}

const TOUCH_INTERVAL_MS = 60_000;

export class InMemoryApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly store: InMemoryStore) {}

  async create(key: NewApiKey): Promise<ApiKey> {
    const { keys, people } = this.store.state;
    if (!people.get(key.accountId)?.account) throw new NotFound(`account ${key.accountId} not found`);
    for (const other of keys.values()) {
      if (other.tokenHash === key.tokenHash) throw new Conflict('a key with this token already exists');
    }
    const stored: StoredKey = {
      id: this.store.id('key'),
      ...copy(key),
      lastUsedAt: null,
      revokedAt: null,
    };
    keys.set(stored.id, stored);
    return toKey(stored);
  }

  async findByTokenHash(tokenHash: string): Promise<KeyCredential | null> {
    for (const key of this.store.state.keys.values()) {
      if (key.tokenHash !== tokenHash) continue;
      const person = this.store.state.people.get(key.accountId);
      if (!person?.account) return null;
      const { username, permissions, disabled } = person.account;
      return {
        key: toKey(key),
        account: copy({ personId: person.id, username, permissions, disabled, role: person.role }),
      };
    }
    return null;
  }

  async findById(id: number): Promise<ApiKey | null> {
    const key = this.store.state.keys.get(id);
    return key ? toKey(key) : null;
  }

  async listActive(accountId: number, now: Date): Promise<ApiKey[]> {
    return [...this.store.state.keys.values()]
      .filter((key) => key.accountId === accountId && isActive(key, now))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id)
      .map(toKey);
  }

  async listAll(accountId: number): Promise<ApiKey[]> {
    return [...this.store.state.keys.values()]
      .filter((key) => key.accountId === accountId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id)
      .map(toKey);
  }

  async countActive(accountId: number, now: Date): Promise<number> {
    return (await this.listActive(accountId, now)).length;
  }

  async setPermissions(id: number, permissions: Permission[]): Promise<void> {
    const key = this.store.state.keys.get(id);
    if (!key) throw new NotFound(`key ${id} not found`);
    key.permissions = [...permissions];
  }

  async revoke(id: number, at: Date): Promise<ApiKey> {
    const key = this.store.state.keys.get(id);
    if (!key) throw new NotFound(`key ${id} not found`);
    key.revokedAt ??= new Date(at);
    return toKey(key);
  }

  async forgetNames(accountId: number): Promise<void> {
    for (const key of this.store.state.keys.values()) if (key.accountId === accountId) key.name = null;
  }

  async touch(id: number, at: Date): Promise<void> {
    const key = this.store.state.keys.get(id);
    if (key && (key.lastUsedAt === null || key.lastUsedAt.getTime() <= at.getTime() - TOUCH_INTERVAL_MS)) {
      key.lastUsedAt = new Date(at);
    }
  }
}
