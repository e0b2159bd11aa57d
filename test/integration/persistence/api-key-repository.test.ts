import type { NewApiKey } from '../../../src/application/ports/api-key-repository';
import type { Transaction } from '../../../src/application/ports/unit-of-work';
import { Conflict, NotFound } from '../../../src/domain/errors';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { uniqueTag } from './fixtures';

const DAY = 24 * 60 * 60 * 1000;

describe.each(testDatabases)('TypeOrmApiKeyRepository on $name', (target) => {
  let database: Database;
  let repositories: Transaction;

  beforeAll(async () => {
    database = await openTestDatabase(target);
    repositories = createRepositories(database.dataSource.manager);
  });

  afterAll(async () => {
    await database?.close();
  });

  async function newAccount(): Promise<number> {
    const account = await repositories.accounts.create({
      username: uniqueTag(),
      passwordHash: 'hash',
      permissions: ['read', 'write'],
      role: 'member',
    });
    return account.personId;
  }

  function newKey(accountId: number, overrides: Partial<NewApiKey> = {}): NewApiKey {
    return {
      accountId,
      name: null,
      prefix: 'mdk_abcd',
      tokenHash: `hash-${uniqueTag()}`,
      permissions: ['read'],
      createdAt: new Date('2025-01-01T10:00:00Z'),
      expiresAt: null,
      ...overrides,
    };
  }

  it('stores a key and finds it by its token hash, with its account', async () => {
    const accountId = await newAccount();
    const input = newKey(accountId, {
      name: 'bot',
      permissions: ['read', 'write'],
      expiresAt: new Date('2025-03-01T00:00:00Z'),
    });

    const created = await repositories.keys.create(input);
    const found = await repositories.keys.findByTokenHash(input.tokenHash);
    const account = await repositories.accounts.findByPersonId(accountId);

    expect(created).toEqual({
      id: expect.any(Number),
      accountId,
      name: 'bot',
      prefix: 'mdk_abcd',
      permissions: ['read', 'write'],
      createdAt: input.createdAt,
      expiresAt: input.expiresAt,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(found).toEqual({
      key: created,
      account: {
        personId: accountId,
        username: account?.username,
        permissions: ['read', 'write'],
        disabled: false,
        role: 'member',
      },
    });
    expect(await repositories.keys.findById(created.id)).toEqual(created);
  });

  it('finds nothing for an unknown hash or id', async () => {
    expect(await repositories.keys.findByTokenHash('no-such-hash')).toBeNull();
    expect(await repositories.keys.findById(2_000_000_000)).toBeNull();
  });

  it('refuses a second key with the same token hash', async () => {
    const accountId = await newAccount();
    const key = newKey(accountId);
    await repositories.keys.create(key);

    await expect(repositories.keys.create(key)).rejects.toBeInstanceOf(Conflict);
  });

  it('lists and counts only keys neither revoked nor expired, oldest first', async () => {
    const accountId = await newAccount();
    const otherAccountId = await newAccount();
    const now = new Date('2025-06-01T12:00:00Z');
    const older = await repositories.keys.create(
      newKey(accountId, { createdAt: new Date(now.getTime() - 2 * DAY) }),
    );
    const newer = await repositories.keys.create(
      newKey(accountId, {
        createdAt: new Date(now.getTime() - DAY),
        expiresAt: new Date(now.getTime() + 1000),
      }),
    );
    await repositories.keys.create(newKey(accountId, { expiresAt: now }));
    const revoked = await repositories.keys.create(newKey(accountId));
    await repositories.keys.revoke(revoked.id, now);
    await repositories.keys.create(newKey(otherAccountId));

    const active = await repositories.keys.listActive(accountId, now);

    expect(active.map((k) => k.id)).toEqual([older.id, newer.id]);
    expect(await repositories.keys.countActive(accountId, now)).toBe(2);
    expect(await repositories.keys.countActive(accountId, new Date(now.getTime() + 2000))).toBe(1);
  });

  it('revokes once: revoking again keeps the first time', async () => {
    const accountId = await newAccount();
    const key = await repositories.keys.create(newKey(accountId));
    const first = new Date('2025-02-01T00:00:00Z');

    const revoked = await repositories.keys.revoke(key.id, first);
    const again = await repositories.keys.revoke(key.id, new Date('2025-02-02T00:00:00Z'));

    expect(revoked.revokedAt).toEqual(first);
    expect(again.revokedAt).toEqual(first);
    expect((await repositories.keys.findByTokenHash((await keyHash(key.id)) ?? ''))?.key.revokedAt).toEqual(
      first,
    );
  });

  it('reports revoking an unknown key with NotFound', async () => {
    await expect(repositories.keys.revoke(2_000_000_000, new Date())).rejects.toBeInstanceOf(NotFound);
  });

  it('records when a key was last used', async () => {
    const accountId = await newAccount();
    const key = await repositories.keys.create(newKey(accountId));
    const at = new Date('2025-04-04T04:04:04.123Z');

    await repositories.keys.touch(key.id, at);

    expect((await repositories.keys.findById(key.id))?.lastUsedAt).toEqual(at);
  });

  it('records a later use only once a minute has passed, whichever instance reports it', async () => {
    const accountId = await newAccount();
    const key = await repositories.keys.create(newKey(accountId));
    const first = new Date('2025-04-04T04:04:04.000Z');

    await repositories.keys.touch(key.id, first);
    await repositories.keys.touch(key.id, new Date(first.getTime() + 59_000));
    await repositories.keys.touch(key.id, new Date(first.getTime() - 120_000));
    expect((await repositories.keys.findById(key.id))?.lastUsedAt).toEqual(first);

    const minuteLater = new Date(first.getTime() + 60_000);
    await repositories.keys.touch(key.id, minuteLater);
    expect((await repositories.keys.findById(key.id))?.lastUsedAt).toEqual(minuteLater);
  });

  async function keyHash(id: number): Promise<string | undefined> {
    const rows: { token_hash: string }[] = await database.dataSource.query(
      'SELECT token_hash FROM api_keys WHERE id = $1',
      [id],
    );
    return rows[0]?.token_hash;
  }
});
