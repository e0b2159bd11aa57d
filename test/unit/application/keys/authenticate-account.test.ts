import { TooManyAttempts, Unauthenticated } from '../../../../src/domain/errors';
import { addAccount } from '../../support/directory-fixtures';
import { keysFixture } from './keys-fixture';

const WRONG = new Unauthenticated('wrong username or password');

describe('AuthenticateAccount', () => {
  it('answers the account for the right username and password', async () => {
    const { directory, authenticateAccount } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    await expect(
      authenticateAccount.execute({ username: 'ann', password: 'pw', clientAddress: '10.0.0.1' }),
    ).resolves.toMatchObject({ personId: account.personId, username: 'ann' });
  });

  it('refuses a wrong password and an unknown user with the same message', async () => {
    const { directory, authenticateAccount } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    const wrong = authenticateAccount.execute({ username: 'ann', password: 'nope', clientAddress: 'a' });
    const unknown = authenticateAccount.execute({ username: 'zed', password: 'pw', clientAddress: 'a' });
    await expect(wrong).rejects.toThrow(WRONG);
    await expect(unknown).rejects.toThrow(WRONG);
  });

  it('checks an unknown user against the dummy hash so that timing does not reveal it', async () => {
    const { authenticateAccount, passwords } = keysFixture();
    await expect(
      authenticateAccount.execute({ username: 'zed', password: 'pw', clientAddress: 'a' }),
    ).rejects.toThrow(Unauthenticated);
    expect(passwords.verifiedAgainst).toEqual([null]);
  });

  it('refuses a disabled account with the same message, even with the right password', async () => {
    const { directory, authenticateAccount } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    await directory.accounts.update(account.personId, { disabled: true });
    await expect(
      authenticateAccount.execute({ username: 'ann', password: 'pw', clientAddress: 'a' }),
    ).rejects.toThrow(WRONG);
  });

  it('blocks a username after 10 failures, even for the right password, until the window passes', async () => {
    const { clock, directory, authenticateAccount } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    for (let i = 0; i < 10; i++) {
      await expect(
        authenticateAccount.execute({ username: 'ann', password: 'bad', clientAddress: `10.0.0.${i}` }),
      ).rejects.toThrow(Unauthenticated);
    }
    const blocked = authenticateAccount.execute({
      username: 'ANN',
      password: 'pw',
      clientAddress: '10.9.9.9',
    });
    await expect(blocked).rejects.toThrow(TooManyAttempts);
    await expect(blocked).rejects.toMatchObject({ retryAfterSeconds: 900 });

    clock.advance(15 * 60 * 1000);
    await expect(
      authenticateAccount.execute({ username: 'ann', password: 'pw', clientAddress: '10.9.9.9' }),
    ).resolves.toHaveProperty('username', 'ann');
  });

  it('blocks a client address after 10 failures across usernames', async () => {
    const { directory, authenticateAccount } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    for (let i = 0; i < 10; i++) {
      await expect(
        authenticateAccount.execute({ username: `u${i}`, password: 'x', clientAddress: '6.6.6.6' }),
      ).rejects.toThrow(Unauthenticated);
    }
    await expect(
      authenticateAccount.execute({ username: 'ann', password: 'pw', clientAddress: '::ffff:6.6.6.6' }),
    ).rejects.toThrow(TooManyAttempts);
    await expect(
      authenticateAccount.execute({ username: 'ann', password: 'pw', clientAddress: '7.7.7.7' }),
    ).resolves.toHaveProperty('username', 'ann');
  });
});
