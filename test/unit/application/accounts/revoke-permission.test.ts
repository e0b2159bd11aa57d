import { NotFound } from '../../../../src/domain/errors';
import { accountsFixture, auditEntries } from '../../support/accounts-fixture';

async function withAccount(permissions: ('read' | 'write')[]) {
  const fixture = accountsFixture();
  await fixture.createAccount.execute({ username: 'bot', password: 'long enough', permissions });
  return fixture;
}

describe('GrantPermission and RevokePermission', () => {
  it('grants a permission and records old and new lists in the audit log', async () => {
    const { directory, grant } = await withAccount(['read']);

    const result = await grant.execute({ username: 'bot', permissions: ['write'] });

    expect(result).toEqual({ permissions: ['read', 'write'], changed: true });
    expect((await directory.accounts.findByUsername('bot'))?.permissions).toEqual(['read', 'write']);
    const [latest] = await auditEntries(directory);
    expect(latest).toMatchObject({
      action: 'account.grant',
      actorAccountId: null,
      field: 'permissions',
      oldValue: 'read',
      newValue: 'read,write',
    });
  });

  it('changes nothing and writes no audit entry when the account already has the permission', async () => {
    const { directory, grant } = await withAccount(['read', 'write']);
    const before = (await auditEntries(directory)).length;

    expect(await grant.execute({ username: 'bot', permissions: ['read'] })).toEqual({
      permissions: ['read', 'write'],
      changed: false,
    });
    expect(await auditEntries(directory)).toHaveLength(before);
  });

  it('revokes a permission, down to none', async () => {
    const { directory, revoke } = await withAccount(['read', 'write']);

    expect(await revoke.execute({ username: 'bot', permissions: ['write'] })).toEqual({
      permissions: ['read'],
      changed: true,
    });
    expect(await revoke.execute({ username: 'bot', permissions: ['read'] })).toEqual({
      permissions: [],
      changed: true,
    });
    const [latest] = await auditEntries(directory);
    expect(latest).toMatchObject({ action: 'account.revoke', oldValue: 'read', newValue: '' });
    expect(await revoke.execute({ username: 'bot', permissions: ['read'] })).toMatchObject({
      changed: false,
    });
  });

  it("takes a revoked permission from the account's active keys too, auditing each key changed", async () => {
    const { clock, directory, revoke, grant } = await withAccount(['read', 'write']);
    const account = (await directory.accounts.findByUsername('bot'))!;
    const newKey = (n: number, permissions: ('read' | 'write')[], expiresAt: Date | null = null) =>
      directory.keys.create({
        accountId: account.personId,
        name: null,
        prefix: `mdk_000${n}`,
        tokenHash: `hash${n}`,
        permissions,
        createdAt: clock.now(),
        expiresAt,
      });
    const both = await newKey(1, ['read', 'write']);
    const readOnly = await newKey(2, ['read']);
    const expired = await newKey(3, ['read', 'write'], new Date(clock.now().getTime() + 1000));
    clock.advance(1000);

    await revoke.execute({ username: 'bot', permissions: ['write'] });
    await grant.execute({ username: 'bot', permissions: ['write'] });

    const permissionsOf = async (id: number) => (await directory.keys.findById(id))?.permissions;
    expect(await permissionsOf(both.id)).toEqual(['read']);
    expect(await permissionsOf(readOnly.id)).toEqual(['read']);
    // An expired key can never be used again: it is left as it was issued.
    expect(await permissionsOf(expired.id)).toEqual(['read', 'write']);
    const keyEntries = (await auditEntries(directory)).filter((entry) => entry.subjectType === 'api_key');
    expect(keyEntries).toEqual([
      expect.objectContaining({
        action: 'key.restrict',
        actorAccountId: null,
        subjectId: both.id,
        field: 'permissions',
        oldValue: 'read,write',
        newValue: 'read',
      }),
    ]);
  });

  it('answers NotFound for an unknown username', async () => {
    const { grant, revoke } = accountsFixture();
    await expect(grant.execute({ username: 'nobody', permissions: ['read'] })).rejects.toThrow(NotFound);
    await expect(revoke.execute({ username: 'nobody', permissions: ['read'] })).rejects.toThrow(NotFound);
  });
});
