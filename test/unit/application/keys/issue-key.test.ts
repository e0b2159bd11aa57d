import { Conflict, InvalidInput, Unauthenticated } from '../../../../src/domain/errors';
import { addAccount } from '../../support/directory-fixtures';
import { keysFixture } from './keys-fixture';

const DAY = 24 * 60 * 60 * 1000;

describe('IssueKey', () => {
  it('issues a key with the account permissions by default and returns the full token once', async () => {
    const { directory, issue, tokens } = keysFixture();
    const account = await addAccount(directory, {
      username: 'ann',
      password: 'pw',
      permissions: ['write', 'read'],
    });

    const { key, token } = await issue(account.personId);

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
    const { directory, issue } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    const { key } = await issue(account.personId);
    expect(await directory.audit.list({ personId: account.personId })).toEqual([
      expect.objectContaining({ action: 'key.issue', subjectType: 'api_key', subjectId: key.id }),
    ]);
  });

  it('refuses an account disabled since it signed in', async () => {
    const { directory, issue } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    await directory.accounts.update(account.personId, { disabled: true });
    await expect(issue(account.personId)).rejects.toThrow(Unauthenticated);
  });

  it('issues a key with a subset of the account permissions, a trimmed name and an expiry', async () => {
    const { directory, issue } = keysFixture();
    const account = await addAccount(directory, {
      username: 'ann',
      password: 'pw',
      permissions: ['read', 'write'],
    });
    const { key } = await issue(account.personId, {
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
    const { directory, issue } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    const { key } = await issue(account.personId, { permissions: [] });
    expect(key.permissions).toEqual([]);
  });

  it('refuses a permission the account lacks, naming it', async () => {
    const { directory, issue } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw', permissions: ['read'] });
    await expect(issue(account.personId, { permissions: ['read', 'write'] })).rejects.toThrow(
      new InvalidInput('permission write is not granted to this account'),
    );
  });

  it('refuses a permission revoked from the account since it signed in', async () => {
    const { directory, issue } = keysFixture();
    const account = await addAccount(directory, {
      username: 'ann',
      password: 'pw',
      permissions: ['read', 'write'],
    });
    await directory.accounts.update(account.personId, { permissions: ['read'] });
    await expect(issue(account.personId, { permissions: ['write'] })).rejects.toThrow(/write/);
    await expect(issue(account.personId)).resolves.toMatchObject({ key: { permissions: ['read'] } });
  });

  it.each([1, 365])('accepts expires_in_days %p', async (expiresInDays) => {
    const { directory, issue } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    const { key } = await issue(account.personId, { expiresInDays });
    expect(key.expiresAt).toEqual(new Date(new Date('2025-03-15T12:00:00Z').getTime() + expiresInDays * DAY));
  });

  it('refuses a name longer than 100 characters', async () => {
    const { directory, issue } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    await expect(issue(account.personId, { name: 'n'.repeat(101) })).rejects.toThrow(/name/);
  });

  it('refuses a 101st active key, and allows one again after a revocation', async () => {
    const { clock, directory, issue } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    let first = 0;
    for (let i = 0; i < 100; i++) {
      const { key } = await issue(account.personId);
      if (i === 0) first = key.id;
    }
    await expect(issue(account.personId)).rejects.toThrow(Conflict);
    expect(await directory.keys.countActive(account.personId, clock.now())).toBe(100);

    await directory.keys.revoke(first, clock.now());
    await expect(issue(account.personId)).resolves.toHaveProperty('token');
  });

  it('does not count expired keys towards the limit', async () => {
    const { clock, directory, issue } = keysFixture();
    const account = await addAccount(directory, { username: 'ann', password: 'pw' });
    for (let i = 0; i < 100; i++) await issue(account.personId, { expiresInDays: 1 });
    clock.advance(DAY);
    await expect(issue(account.personId)).resolves.toHaveProperty('token');
  });
});
