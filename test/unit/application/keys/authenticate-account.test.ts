import { AuthenticateAccount } from '../../../../src/application/keys/authenticate-account';
import type { CheckedFor } from '../../../../src/application/ports/password-hasher';
import { Overloaded, TooManyAttempts, Unauthenticated } from '../../../../src/domain/errors';
import { FakePasswordHasher } from '../../support/fake-password-hasher';
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

  it('checks at most ten of 41 passwords sent at once, and refuses the right one among them', async () => {
    const { directory, authenticateAccount, passwords } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    const attempt = (password: string, i: number) =>
      authenticateAccount.execute({ username: 'ann', password, clientAddress: `10.0.0.${i}` });
    const wrong = Array.from({ length: 40 }, (_, i) => attempt(`guess${i}`, i));
    const right = attempt('pw', 40);

    const outcomes = await Promise.allSettled([...wrong, right]);

    expect(passwords.verifiedAgainst).toHaveLength(10);
    expect(
      outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof Unauthenticated),
    ).toHaveLength(10);
    expect(
      outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof TooManyAttempts),
    ).toHaveLength(31);
  });

  it('gives the attempt back when the password is right, so frequent sign-ins never lock anyone out', async () => {
    const { directory, authenticateAccount } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    const input = { username: 'ann', password: 'pw', clientAddress: '10.0.0.1' };
    for (let i = 0; i < 9; i++) {
      await expect(authenticateAccount.execute({ ...input, password: 'bad' })).rejects.toThrow(
        Unauthenticated,
      );
    }
    for (let i = 0; i < 30; i++) {
      await expect(authenticateAccount.execute(input)).resolves.toMatchObject({ personId: account.personId });
    }
    // The nine wrong ones still count: one more fills the window.
    await expect(authenticateAccount.execute({ ...input, password: 'bad' })).rejects.toThrow(Unauthenticated);
    await expect(authenticateAccount.execute(input)).rejects.toThrow(TooManyAttempts);
  });

  it('gives the attempt back when the check could not start, and passes the refusal on', async () => {
    const { directory, throttle, events } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    const passwords = new FakePasswordHasher();
    let busy = true;
    const crowded = {
      hash: (password: string) => passwords.hash(password),
      verify: async (password: string, hash: string | null) => {
        if (busy) throw new Overloaded('too many sign-ins at once', 1);
        return passwords.verify(password, hash);
      },
    };
    const authenticate = new AuthenticateAccount(directory.accounts, crowded, throttle, events);
    const input = { username: 'ann', password: 'pw', clientAddress: '10.0.0.1' };
    for (let i = 0; i < 15; i++) await expect(authenticate.execute(input)).rejects.toThrow(Overloaded);
    // Each refusal is told to the operator's metrics; none started a lockout.
    expect(events.passwordCheckRefusals).toBe(15);
    expect(events.lockouts).toEqual([]);
    busy = false;
    // Fifteen refusals, none of them counted: the right password still gets in.
    await expect(authenticate.execute(input)).resolves.toHaveProperty('username', 'ann');
  });

  it('has the check made for the case-folded username and the counted address', async () => {
    const { directory, throttle, events } = keysFixture();
    await addAccount(directory, { username: 'Ann', password: 'pw' });
    const seen: (CheckedFor | undefined)[] = [];
    const passwords = new FakePasswordHasher();
    const spy = {
      hash: (password: string) => passwords.hash(password),
      verify: (password: string, hash: string | null, checkedFor?: CheckedFor) => {
        seen.push(checkedFor);
        return passwords.verify(password, hash);
      },
    };
    await new AuthenticateAccount(directory.accounts, spy, throttle, events).execute({
      username: 'Ann',
      password: 'pw',
      clientAddress: '::ffff:10.0.0.1',
    });
    expect(seen).toEqual([{ username: 'ann', clientAddress: '10.0.0.1' }]);
  });

  it('tells the operator once, when the tenth wrong password starts the lockout, naming username and address', async () => {
    const { directory, authenticateAccount, events } = keysFixture();
    await addAccount(directory, { username: 'Ann', password: 'pw' });
    const wrong = { username: 'Ann', password: 'bad', clientAddress: '::ffff:10.0.0.7' };
    for (let i = 0; i < 9; i++)
      await expect(authenticateAccount.execute(wrong)).rejects.toThrow(Unauthenticated);
    expect(events.lockouts).toEqual([]);
    await expect(authenticateAccount.execute(wrong)).rejects.toThrow(Unauthenticated);
    expect(events.lockouts).toEqual([
      { username: 'ann', clientAddress: '10.0.0.7', lockedOut: ['username', 'client address'] },
    ]);
    // The refusals that follow are the lockout itself, not new ones.
    for (let i = 0; i < 5; i++)
      await expect(authenticateAccount.execute(wrong)).rejects.toThrow(TooManyAttempts);
    expect(events.lockouts).toHaveLength(1);
  });

  it('names only the address when one address guesses at many usernames', async () => {
    const { directory, authenticateAccount, events } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    for (let i = 0; i < 10; i++) {
      await expect(
        authenticateAccount.execute({ username: `user${i}`, password: 'bad', clientAddress: '192.0.2.9' }),
      ).rejects.toThrow(Unauthenticated);
    }
    expect(events.lockouts).toEqual([
      { username: 'user9', clientAddress: '192.0.2.9', lockedOut: ['client address'] },
    ]);
  });

  it('starts no lockout when the attempt that filled the window had the right password', async () => {
    const { directory, authenticateAccount, events } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    const input = { username: 'ann', password: 'pw', clientAddress: '10.0.0.1' };
    for (let i = 0; i < 9; i++) {
      await expect(authenticateAccount.execute({ ...input, password: 'bad' })).rejects.toThrow(
        Unauthenticated,
      );
    }
    await expect(authenticateAccount.execute(input)).resolves.toMatchObject({ personId: account.personId });
    expect(events.lockouts).toEqual([]);
  });
});
