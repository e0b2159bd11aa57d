import { Conflict, InvalidInput, TooManyAttempts, Unauthenticated } from '../../../../src/domain/errors';
import { addAccount } from '../../support/directory-fixtures';
import { keysFixture } from './keys-fixture';

const DAY = 24 * 60 * 60 * 1000;

describe('IssueKey', () => {
  it('issues a key with the account permissions by default and returns the full token once', async () => {
    const { directory, issueKey, tokens } = keysFixture();
    const account = await addAccount(directory, {
      username: 'ann',
      password: 'pw',
      permissions: ['write', 'read'],
    });

    const { key, token } = await issueKey.execute({
      username: 'ann',
      password: 'pw',
      clientAddress: '10.0.0.1',
    });

    expect(tokens.isWellFormed(token)).toBe(true);
    expect(key).toMatchObject({
      accountId: account.personId,
      name: null,
      prefix: token.slice(0, 8),
      permissions: ['read', 'write'],
      createdAt: new Date('2025-03-15T12:00:00Z'),
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    // Only the hash is stored: the token itself is nowhere in the store.
    expect(JSON.stringify([...directory.store.state.keys.values()])).not.toContain(token);
    expect((await directory.keys.findByTokenHash(tokens.hash(token)))?.key.id).toBe(key.id);
  });

  it('records the issue in the audit log', async () => {
    const { directory, issueKey } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    const { key } = await issueKey.execute({ username: 'ann', password: 'pw', clientAddress: 'a' });
    expect(await directory.audit.list({ personId: account.personId })).toEqual([
      expect.objectContaining({ action: 'key.issue', subjectType: 'api_key', subjectId: key.id }),
    ]);
  });

  it('refuses a wrong password and an unknown user with the same message', async () => {
    const { directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    const wrong = issueKey.execute({ username: 'ann', password: 'nope', clientAddress: 'a' });
    const unknown = issueKey.execute({ username: 'zed', password: 'pw', clientAddress: 'a' });
    await expect(wrong).rejects.toThrow(new Unauthenticated('wrong username or password'));
    await expect(unknown).rejects.toThrow(new Unauthenticated('wrong username or password'));
  });

  it('checks an unknown user against the dummy hash so that timing does not reveal it', async () => {
    const { issueKey, passwords } = keysFixture();
    await expect(issueKey.execute({ username: 'zed', password: 'pw', clientAddress: 'a' })).rejects.toThrow(
      Unauthenticated,
    );
    expect(passwords.verifiedAgainst).toEqual([null]);
  });

  it('refuses a disabled account with the same message, even with the right password', async () => {
    const { directory, issueKey } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    await directory.accounts.update(account.personId, { disabled: true });
    await expect(issueKey.execute({ username: 'ann', password: 'pw', clientAddress: 'a' })).rejects.toThrow(
      new Unauthenticated('wrong username or password'),
    );
  });

  it('blocks a username after 10 failures, even for the right password, until the window passes', async () => {
    const { clock, directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    for (let i = 0; i < 10; i++) {
      await expect(
        issueKey.execute({ username: 'ann', password: 'bad', clientAddress: `10.0.0.${i}` }),
      ).rejects.toThrow(Unauthenticated);
    }
    const blocked = issueKey.execute({ username: 'ANN', password: 'pw', clientAddress: '10.9.9.9' });
    await expect(blocked).rejects.toThrow(TooManyAttempts);
    await expect(blocked).rejects.toMatchObject({ retryAfterSeconds: 900 });

    clock.advance(15 * 60 * 1000);
    await expect(
      issueKey.execute({ username: 'ann', password: 'pw', clientAddress: '10.9.9.9' }),
    ).resolves.toHaveProperty('token');
  });

  it('blocks a client address after 10 failures across usernames', async () => {
    const { directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    for (let i = 0; i < 10; i++) {
      await expect(
        issueKey.execute({ username: `u${i}`, password: 'x', clientAddress: '6.6.6.6' }),
      ).rejects.toThrow(Unauthenticated);
    }
    await expect(
      issueKey.execute({ username: 'ann', password: 'pw', clientAddress: '6.6.6.6' }),
    ).rejects.toThrow(TooManyAttempts);
    await expect(
      issueKey.execute({ username: 'ann', password: 'pw', clientAddress: '7.7.7.7' }),
    ).resolves.toHaveProperty('token');
  });

  it('issues a key with a subset of the account permissions, a trimmed name and an expiry', async () => {
    const { directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw', permissions: ['read', 'write'] });
    const { key } = await issueKey.execute({
      username: 'ann',
      password: 'pw',
      clientAddress: 'a',
      name: '  chat bot ',
      permissions: ['read'],
      expiresInDays: 30,
    });
    expect(key).toMatchObject({
      name: 'chat bot',
      permissions: ['read'],
      expiresAt: new Date(new Date('2025-03-15T12:00:00Z').getTime() + 30 * DAY),
    });
  });

  it('allows a key with no permissions at all', async () => {
    const { directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    const { key } = await issueKey.execute({
      username: 'ann',
      password: 'pw',
      clientAddress: 'a',
      permissions: [],
    });
    expect(key.permissions).toEqual([]);
  });

  it('refuses a permission the account lacks, naming it', async () => {
    const { directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw', permissions: ['read'] });
    await expect(
      issueKey.execute({
        username: 'ann',
        password: 'pw',
        clientAddress: 'a',
        permissions: ['read', 'write'],
      }),
    ).rejects.toThrow(new InvalidInput('permission write is not granted to this account'));
  });

  it('refuses an unknown permission and permissions that are not a list', async () => {
    const { directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    const base = { username: 'ann', password: 'pw', clientAddress: 'a' };
    await expect(issueKey.execute({ ...base, permissions: ['admin'] })).rejects.toThrow(/admin/);
    await expect(issueKey.execute({ ...base, permissions: 'read' })).rejects.toThrow(InvalidInput);
  });

  it.each([0, 366, 1.5, '30'])('refuses expires_in_days %p', async (expiresInDays) => {
    const { directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    await expect(
      issueKey.execute({ username: 'ann', password: 'pw', clientAddress: 'a', expiresInDays }),
    ).rejects.toThrow(/expires_in_days/);
  });

  it.each([1, 365])('accepts expires_in_days %p', async (expiresInDays) => {
    const { directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    const { key } = await issueKey.execute({
      username: 'ann',
      password: 'pw',
      clientAddress: 'a',
      expiresInDays,
    });
    expect(key.expiresAt).not.toBeNull();
  });

  it('refuses a name longer than 100 characters', async () => {
    const { directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    await expect(
      issueKey.execute({ username: 'ann', password: 'pw', clientAddress: 'a', name: 'n'.repeat(101) }),
    ).rejects.toThrow(/name/);
  });

  it('refuses a 101st active key, and allows one again after a revocation', async () => {
    const { clock, directory, issueKey } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    const input = { username: 'ann', password: 'pw', clientAddress: 'a' };
    let first = 0;
    for (let i = 0; i < 100; i++) {
      const { key } = await issueKey.execute(input);
      if (i === 0) first = key.id;
    }
    await expect(issueKey.execute(input)).rejects.toThrow(Conflict);
    expect(await directory.keys.countActive(account.personId, clock.now())).toBe(100);

    await directory.keys.revoke(first, clock.now());
    await expect(issueKey.execute(input)).resolves.toHaveProperty('token');
  });

  it('does not count expired keys towards the limit', async () => {
    const { clock, directory, issueKey } = keysFixture();
    await addAccount(directory, { username: 'ann', password: 'pw' });
    const input = { username: 'ann', password: 'pw', clientAddress: 'a' };
    for (let i = 0; i < 100; i++) await issueKey.execute({ ...input, expiresInDays: 1 });
    clock.advance(DAY);
    await expect(issueKey.execute(input)).resolves.toHaveProperty('token');
  });
});
