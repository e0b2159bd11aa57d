import { accountsFixture } from '../../support/accounts-fixture';

describe('ListAccounts', () => {
  it('lists accounts with role, permissions and active key count, and no hash', async () => {
    const { directory, createAccount, list, clock } = accountsFixture();
    const account = await createAccount.execute({
      username: 'ann',
      password: 'long enough',
      permissions: ['read'],
    });
    await directory.keys.create({
      accountId: account.personId,
      name: null,
      prefix: 'mdk_abcd',
      tokenHash: 'h1',
      permissions: ['read'],
      createdAt: clock.now(),
      expiresAt: null,
    });

    const accounts = await list.execute();

    expect(accounts).toEqual([
      {
        personId: account.personId,
        username: 'ann',
        role: 'admin',
        permissions: ['read'],
        disabled: false,
        activeKeyCount: 1,
      },
    ]);
    expect(JSON.stringify(accounts)).not.toContain('hashed:');
  });
});
