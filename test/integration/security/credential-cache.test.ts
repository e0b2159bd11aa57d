import pino from 'pino';
import request from 'supertest';
import { SetAccountDisabled } from '../../../src/application/accounts/set-account-disabled';
import { RevokePermission } from '../../../src/application/accounts/revoke-permission';
import type { ApiKeyRepository, KeyCredential } from '../../../src/application/ports/api-key-repository';
import type { TokenService } from '../../../src/application/ports/token-service';
import { TYPES } from '../../../src/application/ports/tokens';
import { APP, closeConnections, startConnections } from '../../../src/container';
import { CachingApiKeyRepository } from '../../../src/infrastructure/credentials/caching-api-key-repository';
import { CachingUnitOfWork } from '../../../src/infrastructure/credentials/caching-unit-of-work';
import { CredentialCache } from '../../../src/infrastructure/credentials/credential-cache';
import { KeyEventsListener } from '../../../src/infrastructure/credentials/key-events-listener';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { SqlUnitOfWork } from '../../../src/infrastructure/persistence/sql-unit-of-work';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { waitFor } from '../multi-instance/instances';

/** Counts the lookups that reach the wrapped repository, i.e. the database. */
function counting(inner: ApiKeyRepository): ApiKeyRepository & { lookups: number } {
  const wrapper = Object.create(inner) as ApiKeyRepository & { lookups: number };
  wrapper.lookups = 0;
  wrapper.findByTokenHash = (hash: string) => {
    wrapper.lookups += 1;
    return inner.findByTokenHash(hash);
  };
  return wrapper;
}

describe.each(testDatabases)('the credential cache on $name', (target) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target);
    // As main.ts does: on PostgreSQL the cache is served only while the listener runs.
    await startConnections(t.container);
    const listener = t.container.get<KeyEventsListener | null>(APP.KeyEvents);
    await waitFor(() => listener === null || listener.listening, 5000);
  });
  afterAll(async () => {
    await closeConnections(t.container);
    await t.close();
  });

  const hashOf = (token: string) => t.container.get<TokenService>(TYPES.TokenService).hash(token);
  const get = (path: string, token: string) =>
    request(t.app).get(path).set('Authorization', `Bearer ${token}`);

  /** A token just used twice, so that the cache holds it. */
  async function cachedToken(username?: string, password?: string): Promise<string> {
    const token = username ? await t.issueToken(username, password ?? '') : await t.tokenWith();
    await get('/keys', token).expect(200);
    await get('/keys', token).expect(200);
    return token;
  }

  describe('through the service', () => {
    it('is in use: a key just used is held', async () => {
      const cache = t.container.get<CredentialCache>(APP.CredentialCache);
      await cachedToken();
      expect(cache.usable).toBe(true);
      expect(cache.size).toBeGreaterThan(0);
    });

    it('does not outlive DELETE /keys: the next request with the key is refused at once', async () => {
      const token = await cachedToken();

      await request(t.app).delete('/keys').set('Authorization', `Bearer ${token}`).expect(200);

      const res = await get('/keys', token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ errors: ['invalid, revoked or expired API key'] });
    });

    it('does not outlive DELETE /keys/:id of another key of the account', async () => {
      const account = await t.createAccount();
      const kept = await cachedToken(account.username, account.password);
      const revoked = await cachedToken(account.username, account.password);
      const [listed] = (await get('/keys', revoked).expect(200)).body.filter(
        (key: { token: string }) => key.token === `${revoked.slice(0, 8)}…`,
      );

      await request(t.app).delete(`/keys/${listed.id}`).set('Authorization', `Bearer ${kept}`).expect(200);

      expect((await get('/keys', revoked)).status).toBe(401);
      await get('/keys', kept).expect(200);
    });

    it('does not outlive disabling the account (what `accounts disable` runs), nor enabling it again', async () => {
      const account = await t.createAccount();
      const token = await cachedToken(account.username, account.password);

      await t.container.get(SetAccountDisabled).execute({ username: account.username, disabled: true });
      const refused = await get('/keys', token);
      await t.container.get(SetAccountDisabled).execute({ username: account.username, disabled: false });

      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ errors: ['account is disabled'] });
      await get('/keys', token).expect(200);
    });

    it('does not outlive a permission revoked from the account', async () => {
      const account = await t.createAccount({ permissions: ['read', 'write'] });
      const token = await cachedToken(account.username, account.password);
      await get('/people', token).expect(200);

      await t.container.get(RevokePermission).execute({ username: account.username, permissions: ['read'] });

      const res = await get('/people', token);
      expect(res.status).toBe(401);
      expect(res.body.errors[0]).toMatch(/read/);
    });
  });

  describe('lookups that reach the database', () => {
    let now = 0;
    const clock = () => now;
    const keysOf = () => createRepositories(t.database.dataSource.manager).keys;

    it('are one per key and entry lifetime, not one per request', async () => {
      const inner = counting(keysOf());
      const cache = new CredentialCache({ alwaysUsable: true, now: clock });
      const keys = new CachingApiKeyRepository(inner, cache, cache);
      const token = await t.tokenWith();
      const hash = hashOf(token);

      for (let i = 0; i < 5; i++) {
        expect(await keys.findByTokenHash(hash)).toMatchObject({
          key: { prefix: token.slice(0, 8), revokedAt: null },
        });
      }
      expect(inner.lookups).toBe(1);

      now += 799;
      await keys.findByTokenHash(hash);
      expect(inner.lookups).toBe(1);
      now += 1;
      await keys.findByTokenHash(hash);
      expect(inner.lookups).toBe(2);
    });

    it('are made every time for a token nobody holds: guesses never fill the cache', async () => {
      const inner = counting(keysOf());
      const cache = new CredentialCache({ alwaysUsable: true, now: clock });
      const keys = new CachingApiKeyRepository(inner, cache, cache);
      const hash = hashOf(`mdk_${uniqueName()}`);

      for (let i = 0; i < 3; i++) expect(await keys.findByTokenHash(hash)).toBeNull();

      expect(inner.lookups).toBe(3);
      expect(cache.size).toBe(0);
    });

    it('are made every time while no listener hears other processes (PostgreSQL without LISTEN)', async () => {
      const inner = counting(keysOf());
      const cache = new CredentialCache({ alwaysUsable: false, now: clock });
      const keys = new CachingApiKeyRepository(inner, cache, cache);
      const hash = hashOf(await t.tokenWith());

      for (let i = 0; i < 3; i++) await keys.findByTokenHash(hash);

      expect(inner.lookups).toBe(3);
    });

    it('see a revocation as soon as its transaction commits, and an entry is dropped after a rollback too', async () => {
      const inner = counting(keysOf());
      const cache = new CredentialCache({ alwaysUsable: true, now: clock });
      const keys = new CachingApiKeyRepository(inner, cache, cache);
      const unitOfWork = new CachingUnitOfWork(new SqlUnitOfWork(t.database.dataSource), cache);
      const rolledBack = hashOf(await t.tokenWith());
      const committed = hashOf(await t.tokenWith());
      const before = (await keys.findByTokenHash(committed)) as KeyCredential;
      const other = (await keys.findByTokenHash(rolledBack)) as KeyCredential;

      await expect(
        unitOfWork.run(async (tx) => {
          await tx.keys.revoke(other.key.id, new Date());
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      const revokedAt = new Date();
      await unitOfWork.run(async (tx) => {
        await tx.keys.revoke(before.key.id, revokedAt);
        // Not committed yet: other requests may still be served the key.
        expect((await keys.findByTokenHash(committed))?.key.revokedAt).toBeNull();
      });

      expect((await keys.findByTokenHash(committed))?.key.revokedAt).toEqual(revokedAt);
      expect((await keys.findByTokenHash(rolledBack))?.key.revokedAt).toBeNull();
      expect(inner.lookups).toBe(4);
    });
  });
});

describe('a lookup running while a key is revoked', () => {
  it('answers but is not kept: it may have read the row from before the revocation', async () => {
    const credential = {
      key: { id: 7, revokedAt: null },
      account: { personId: 3, disabled: false },
    } as unknown as KeyCredential;
    let release: () => void = () => undefined;
    let lookups = 0;
    const inner = {
      findByTokenHash: async () => {
        lookups += 1;
        if (lookups === 1) await new Promise<void>((resolve) => (release = resolve));
        return credential;
      },
    } as unknown as ApiKeyRepository;
    const cache = new CredentialCache({ alwaysUsable: true });
    const keys = new CachingApiKeyRepository(inner, cache, cache);

    const slow = keys.findByTokenHash('h');
    await new Promise((resolve) => setImmediate(resolve));
    cache.keyRevoked(99);
    release();

    expect(await slow).toBe(credential);
    await keys.findByTokenHash('h');
    await keys.findByTokenHash('h');
    expect(lookups).toBe(2);
  });
});

const postgres = testDatabases.find((target) => target.name === 'postgres');
const describeOnPostgres = postgres === undefined ? describe.skip : describe;

describeOnPostgres('the key events listener on PostgreSQL', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(postgres ?? { name: 'postgres', url: null });
  });
  afterAll(() => t.close());

  const hashOf = (token: string) => t.container.get<TokenService>(TYPES.TokenService).hash(token);

  function listen(cache: CredentialCache, applicationName: string): KeyEventsListener {
    return new KeyEventsListener(postgres?.url ?? '', cache, pino({ level: 'silent' }), {
      minBackoffMs: 50,
      applicationName,
    });
  }

  it('makes the cache forget a key revoked by another process, within a second of the commit', async () => {
    const cache = new CredentialCache();
    const listener = listen(cache, uniqueName('listener'));
    await listener.start();
    try {
      const keys = new CachingApiKeyRepository(
        createRepositories(t.database.dataSource.manager).keys,
        cache,
        cache,
      );
      const credential = (await keys.findByTokenHash(hashOf(await t.tokenWith()))) as KeyCredential;
      expect(cache.size).toBe(1);

      // Another process: a transaction outside this cache's knowledge.
      await new SqlUnitOfWork(t.database.dataSource).run((tx) =>
        tx.keys.revoke(credential.key.id, new Date()),
      );

      expect(await waitFor(() => cache.size === 0, 1000)).toBeLessThan(1000);
    } finally {
      await listener.close();
    }
  });

  it('stops the cache being served while its connection is down, and reconnects by itself', async () => {
    const cache = new CredentialCache();
    const name = uniqueName('listener');
    const listener = listen(cache, name);
    await listener.start();
    try {
      expect(cache.usable).toBe(true);

      await t.database.dataSource.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [name],
      );

      await waitFor(() => !cache.usable, 2000);
      expect(listener.listening).toBe(false);
      await waitFor(() => listener.listening && cache.usable, 5000);
      // Listening again: an account change made elsewhere is heard.
      const keys = new CachingApiKeyRepository(
        createRepositories(t.database.dataSource.manager).keys,
        cache,
        cache,
      );
      const account = await t.createAccount();
      const credential = (await keys.findByTokenHash(
        hashOf(await t.issueToken(account.username, account.password)),
      )) as KeyCredential;
      expect(cache.size).toBe(1);
      await new SqlUnitOfWork(t.database.dataSource).run((tx) =>
        tx.accounts.update(credential.account.personId, { disabled: true }),
      );
      await waitFor(() => cache.size === 0, 1000);
    } finally {
      await listener.close();
    }
    expect(cache.usable).toBe(false);
  });
});
