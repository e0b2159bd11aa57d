import type { ApiKeyRepository } from '../../../../src/application/ports/api-key-repository';
import { AuthenticateKey } from '../../../../src/application/keys/authenticate-key';
import { Unauthenticated } from '../../../../src/domain/errors';
import { addAccount } from '../../support/directory-fixtures';
import { keysFixture } from './keys-fixture';

async function issued(options: { permissions?: ('read' | 'write')[]; expiresInDays?: number } = {}) {
  const fixture = keysFixture();
  const account = await addAccount(fixture.directory, { username: 'ann', password: 'pw' });
  const { key, token } = await fixture.issue(account.personId, options);
  return { ...fixture, account, key, token };
}

const INVALID = 'invalid, revoked or expired API key';

describe('AuthenticateKey', () => {
  it('turns a valid token into the principal of its account and key', async () => {
    const { authenticate, account, key, token } = await issued();
    await expect(authenticate.execute({ token })).resolves.toEqual({
      accountId: account.personId,
      keyId: key.id,
      permissions: ['read', 'write'],
    });
  });

  it('refuses a malformed token without looking it up', async () => {
    const { directory, tokens, clock } = await issued();
    let lookups = 0;
    const counting: ApiKeyRepository = Object.create(directory.keys);
    counting.findByTokenHash = async (hash) => {
      lookups++;
      return directory.keys.findByTokenHash(hash);
    };
    const authenticate = new AuthenticateKey(counting, tokens, clock);
    await expect(authenticate.execute({ token: 'mdk_nonsense' })).rejects.toThrow(
      new Unauthenticated(INVALID),
    );
    expect(lookups).toBe(0);
  });

  it('refuses a well-formed token that was never issued', async () => {
    const { authenticate, tokens } = await issued();
    await expect(authenticate.execute({ token: tokens.issue().token })).rejects.toThrow(
      new Unauthenticated(INVALID),
    );
  });

  it('refuses a revoked key at once', async () => {
    const { authenticate, directory, clock, key, token } = await issued();
    await directory.keys.revoke(key.id, clock.now());
    await expect(authenticate.execute({ token })).rejects.toThrow(new Unauthenticated(INVALID));
  });

  it('refuses a key once it has expired', async () => {
    const { authenticate, clock, account, key, token } = await issued({ expiresInDays: 1 });
    clock.advance(24 * 60 * 60 * 1000 - 1);
    await expect(authenticate.execute({ token })).resolves.toEqual({
      accountId: account.personId,
      keyId: key.id,
      permissions: ['read', 'write'],
    });
    clock.advance(1);
    await expect(authenticate.execute({ token })).rejects.toThrow(new Unauthenticated(INVALID));
  });

  it('refuses every key of a disabled account', async () => {
    const { authenticate, directory, account, token } = await issued();
    await directory.accounts.update(account.personId, { disabled: true });
    await expect(authenticate.execute({ token })).rejects.toThrow(new Unauthenticated('account is disabled'));
  });

  it('drops a permission revoked from the account from keys issued before', async () => {
    const { authenticate, directory, account, token } = await issued();
    await directory.accounts.update(account.personId, { permissions: ['read'] });
    await expect(authenticate.execute({ token })).resolves.toMatchObject({ permissions: ['read'] });
  });

  it('does not widen a key when the account gains a permission', async () => {
    const { authenticate, directory, account, token } = await issued({ permissions: ['read'] });
    await directory.accounts.update(account.personId, { permissions: ['read', 'write'] });
    await expect(authenticate.execute({ token })).resolves.toMatchObject({ permissions: ['read'] });
  });

  it('records last use at most once a minute per key', async () => {
    const { authenticate, directory, clock, key, token } = await issued();
    const lastUsed = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return (await directory.keys.findById(key.id))?.lastUsedAt;
    };
    const start = clock.now();

    await authenticate.execute({ token });
    expect(await lastUsed()).toEqual(start);

    clock.advance(59_000);
    await authenticate.execute({ token });
    expect(await lastUsed()).toEqual(start);

    clock.advance(1_000);
    await authenticate.execute({ token });
    expect(await lastUsed()).toEqual(clock.now());
  });

  it('writes last use once for a burst, even before the first write lands', async () => {
    const { directory, tokens, clock, token } = await issued();
    let touches = 0;
    const counting: ApiKeyRepository = Object.create(directory.keys);
    counting.touch = async (id, at) => {
      touches++;
      return directory.keys.touch(id, at);
    };
    const authenticate = new AuthenticateKey(counting, tokens, clock);
    await Promise.all(Array.from({ length: 20 }, () => authenticate.execute({ token })));
    expect(touches).toBe(1);
  });

  it('still authenticates when recording last use fails', async () => {
    const { directory, tokens, clock, token } = await issued();
    const failing: ApiKeyRepository = Object.create(directory.keys);
    failing.touch = () => Promise.reject(new Error('database gone'));
    const authenticate = new AuthenticateKey(failing, tokens, clock);
    await expect(authenticate.execute({ token })).resolves.toHaveProperty('keyId');
  });
});
