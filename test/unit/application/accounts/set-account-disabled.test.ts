import { accountsFixture, auditEntries } from '../../support/accounts-fixture';

describe('SetAccountDisabled', () => {
  it('disables and enables an account, each once, with audit entries', async () => {
    const { directory, createAccount, setDisabled } = accountsFixture();
    await createAccount.execute({ username: 'ann', password: 'first password', permissions: ['read'] });

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
