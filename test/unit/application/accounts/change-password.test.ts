import { InvalidInput, NotFound } from '../../../../src/domain/errors';
import { accountsFixture, auditEntries } from '../../support/accounts-fixture';

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
