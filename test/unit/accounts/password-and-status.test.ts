import { InvalidInput, NotFound } from '../../../src/domain/errors';
import { accountsFixture, auditEntries } from './accounts-fixture';

async function withAccount() {
  const fixture = accountsFixture();
  await fixture.createAccount.execute({ username: 'ann', password: 'first password', permissions: ['read'] });
  return fixture;
}

describe('ChangePassword', () => {
  it('stores the hash of the new password and audits the change without any hash', async () => {
    const { directory, changePassword } = await withAccount();

    await changePassword.execute({ username: 'ann', password: 'second password' });

    expect((await directory.accounts.findByUsername('ann'))?.passwordHash).toBe('hashed:second password');
    const [latest] = await auditEntries(directory);
    expect(latest).toMatchObject({
      action: 'account.password',
      field: 'password',
      oldValue: null,
      newValue: null,
    });
    expect(JSON.stringify(await auditEntries(directory))).not.toContain('hashed:');
  });

  it('refuses a password shorter than 8 characters or longer than bcrypt reads, and unknown accounts', async () => {
    const { directory, changePassword } = await withAccount();
    await expect(changePassword.execute({ username: 'ann', password: 'seven77' })).rejects.toThrow(
      InvalidInput,
    );
    await expect(changePassword.execute({ username: 'ann', password: 'x'.repeat(73) })).rejects.toThrow(
      /72 bytes/,
    );
    await expect(changePassword.execute({ username: 'bob', password: 'long enough' })).rejects.toThrow(
      NotFound,
    );
    expect((await directory.accounts.findByUsername('ann'))?.passwordHash).toBe('hashed:first password');
  });
});

describe('SetAccountDisabled', () => {
  it('disables and enables an account, each once, with audit entries', async () => {
    const { directory, setDisabled } = await withAccount();

    expect(await setDisabled.execute({ username: 'ann', disabled: true })).toEqual({ changed: true });
    expect((await directory.accounts.findByUsername('ann'))?.disabled).toBe(true);
    expect(await setDisabled.execute({ username: 'ann', disabled: true })).toEqual({ changed: false });
    expect(await setDisabled.execute({ username: 'ann', disabled: false })).toEqual({ changed: true });
    expect((await directory.accounts.findByUsername('ann'))?.disabled).toBe(false);

    const actions = (await auditEntries(directory)).map((e) => [e.action, e.oldValue, e.newValue]);
    expect(actions.slice(0, 2)).toEqual([
      ['account.enable', 'true', 'false'],
      ['account.disable', 'false', 'true'],
    ]);
  });
});

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
