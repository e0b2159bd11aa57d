import type { NewApiKey } from '../../src/application/ports/api-key-repository';
import { Conflict, NotFound } from '../../src/domain/errors';
import { type ContractAdapter, uniqueTag } from './contract-adapter';

const DAY = 24 * 60 * 60 * 1000;

/** ApiKeyRepository: keys by token hash, activity, revocation, last use. */
export function describeApiKeyRepositoryContract(adapter: () => ContractAdapter): void {
  const repositories = () => adapter().repositories;

  async function newAccount(): Promise<number> {
    const account = await repositories().accounts.create({
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

  describe('ApiKeyRepository', () => {
    it('stores a key, never handing out its hash, and finds it by the hash with its account', async () => {
      const accountId = await newAccount();
      const input = newKey(accountId, {
        name: 'bot',
        permissions: ['read', 'write'],
        expiresAt: new Date('2025-03-01T00:00:00Z'),
      });

      const created = await repositories().keys.create(input);
      const found = await repositories().keys.findByTokenHash(input.tokenHash);
      const account = await repositories().accounts.findByPersonId(accountId);

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
      expect(await repositories().keys.findById(created.id)).toEqual(created);
    });

    it('finds nothing for an unknown hash or id', async () => {
      expect(await repositories().keys.findByTokenHash(`no-such-hash-${uniqueTag()}`)).toBeNull();
      expect(await repositories().keys.findById(2_000_000_000)).toBeNull();
    });

    it('refuses a second key with the same token hash with Conflict', async () => {
      const accountId = await newAccount();
      const key = newKey(accountId);
      await repositories().keys.create(key);

      await expect(repositories().keys.create(key)).rejects.toBeInstanceOf(Conflict);
    });

    it('lists and counts only keys neither revoked nor expired, oldest first', async () => {
      const accountId = await newAccount();
      const otherAccountId = await newAccount();
      const now = new Date('2025-06-01T12:00:00Z');
      const newer = await repositories().keys.create(
        newKey(accountId, {
          createdAt: new Date(now.getTime() - DAY),
          expiresAt: new Date(now.getTime() + 1000),
        }),
      );
      const older = await repositories().keys.create(
        newKey(accountId, { createdAt: new Date(now.getTime() - 2 * DAY) }),
      );
      await repositories().keys.create(newKey(accountId, { expiresAt: now }));
      const revoked = await repositories().keys.create(newKey(accountId));
      await repositories().keys.revoke(revoked.id, now);
      await repositories().keys.create(newKey(otherAccountId));

      const active = await repositories().keys.listActive(accountId, now);

      expect(active.map((k) => k.id)).toEqual([older.id, newer.id]);
      expect(await repositories().keys.countActive(accountId, now)).toBe(2);
      expect(await repositories().keys.countActive(accountId, new Date(now.getTime() + 2000))).toBe(1);
    });

    it('replaces the permissions of a key', async () => {
      const accountId = await newAccount();
      const key = await repositories().keys.create(newKey(accountId, { permissions: ['read', 'write'] }));

      await repositories().keys.setPermissions(key.id, ['read']);

      expect((await repositories().keys.findById(key.id))?.permissions).toEqual(['read']);
    });

    it('revokes once: revoking again keeps the first time', async () => {
      const accountId = await newAccount();
      const input = newKey(accountId);
      const key = await repositories().keys.create(input);
      const first = new Date('2025-02-01T00:00:00Z');

      const revoked = await repositories().keys.revoke(key.id, first);
      const again = await repositories().keys.revoke(key.id, new Date('2025-02-02T00:00:00Z'));

      expect(revoked).toEqual({ ...key, revokedAt: first });
      expect(again.revokedAt).toEqual(first);
      expect((await repositories().keys.findByTokenHash(input.tokenHash))?.key.revokedAt).toEqual(first);
    });

    it("clears the names of every key of the account, and no other's; an erased account's keys find no account", async () => {
      const accountId = await newAccount();
      const otherId = await newAccount();
      const input = newKey(accountId, { name: 'laptop' });
      const named = await repositories().keys.create(input);
      const other = await repositories().keys.create(newKey(otherId, { name: 'phone' }));

      await repositories().keys.forgetNames(accountId);
      await repositories().accounts.erase(accountId);

      expect(await repositories().keys.findById(named.id)).toMatchObject({ name: null });
      expect(await repositories().keys.findById(other.id)).toMatchObject({ name: 'phone' });
      expect(await repositories().accounts.findByPersonId(accountId)).toBeNull();
      expect(await repositories().keys.findByTokenHash(input.tokenHash)).toBeNull();
      await expect(repositories().accounts.erase(accountId)).rejects.toBeInstanceOf(NotFound);
    });

    it('reports revoking an unknown key with NotFound', async () => {
      await expect(repositories().keys.revoke(2_000_000_000, new Date())).rejects.toBeInstanceOf(NotFound);
    });

    it('records a use, and a later one only once a minute has passed, never going backwards', async () => {
      const accountId = await newAccount();
      const key = await repositories().keys.create(newKey(accountId));
      const first = new Date('2025-04-04T04:04:04.123Z');
      const lastUsed = async () => (await repositories().keys.findById(key.id))?.lastUsedAt;

      await repositories().keys.touch(key.id, first);
      expect(await lastUsed()).toEqual(first);

      await repositories().keys.touch(key.id, new Date(first.getTime() + 59_000));
      await repositories().keys.touch(key.id, new Date(first.getTime() - 120_000));
      expect(await lastUsed()).toEqual(first);

      const minuteLater = new Date(first.getTime() + 60_000);
      await repositories().keys.touch(key.id, minuteLater);
      expect(await lastUsed()).toEqual(minuteLater);
    });
  });
}
