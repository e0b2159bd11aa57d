import request from 'supertest';
import { GrantPermission } from '../../../src/application/accounts/grant-permission';
import { RevokePermission } from '../../../src/application/accounts/revoke-permission';
import type { AuditLog } from '../../../src/application/ports/audit-log';
import { TYPES } from '../../../src/application/ports/tokens';
import { createTestApp, type TestAccount, type TestApp } from '../../support/app';
import { BEARER_CHALLENGE, INVALID_TOKEN } from '../../support/challenges';
import { testDatabases } from '../../support/databases';
import { FakeClock } from '../../unit/support/fake-clock';

const API_KEY_FIELDS = ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'permissions', 'token'];
const DAY_MS = 24 * 60 * 60 * 1000;

interface IssuedKey {
  id: number;
  token: string;
}

function basic(account: TestAccount): string {
  return `Basic ${Buffer.from(`${account.username}:${account.password}`, 'utf8').toString('base64')}`;
}

function masked(token: string): string {
  return `${token.slice(0, 8)}…`;
}

describe.each(testDatabases)('listing and revoking keys on $name', (target) => {
  let t: TestApp;
  const clock = new FakeClock();

  beforeAll(async () => {
    t = await createTestApp(target, { overrides: { clock } });
  });
  afterAll(() => t.close());

  async function issueKey(account: TestAccount, body: object = {}): Promise<IssuedKey> {
    const res = await request(t.app)
      .post('/keys')
      .set('Authorization', basic(account))
      .send(body)
      .expect(201);
    return { id: res.body.id, token: res.body.token };
  }

  const list = (key: IssuedKey) => request(t.app).get('/keys').set('Authorization', `Bearer ${key.token}`);
  const revokeOwn = (key: IssuedKey) =>
    request(t.app).delete('/keys').set('Authorization', `Bearer ${key.token}`);
  const revoke = (key: IssuedKey, id: number | string) =>
    request(t.app).delete(`/keys/${id}`).set('Authorization', `Bearer ${key.token}`);

  describe('GET /keys', () => {
    it('shows a permission revoked from the account gone from its keys, and a later grant does not bring it back', async () => {
      const account = await t.createAccount({ permissions: ['read', 'write'] });
      const both = await issueKey(account);
      const readOnly = await issueKey(account, { permissions: ['read'] });
      const writeOnly = await issueKey(account, { permissions: ['write'] });

      await t.container.get(RevokePermission).execute({ username: account.username, permissions: ['write'] });
      const listed = async () =>
        (await list(both).expect(200)).body.map((key: { permissions: string[] }) => key.permissions);
      expect(await listed()).toEqual([['read'], ['read'], []]);

      await t.container.get(GrantPermission).execute({ username: account.username, permissions: ['write'] });
      expect(await listed()).toEqual([['read'], ['read'], []]);
      // What GET /keys shows is what the key can do.
      await request(t.app)
        .patch('/people/1')
        .set('Authorization', `Bearer ${both.token}`)
        .send({ 'person[first_name]': 'X' })
        .expect(401);

      const entries = await t.container.get<AuditLog>(TYPES.AuditLog).list({ limit: 1000 });
      const restricted = entries.filter((entry) => entry.action === 'key.restrict');
      expect(restricted.map((e) => [e.subjectId, e.oldValue, e.newValue]).sort()).toEqual(
        [
          [both.id, 'read,write', 'read'],
          [writeOnly.id, 'write', ''],
        ].sort(),
      );
      expect(restricted.map((e) => e.subjectId)).not.toContain(readOnly.id);
    });

    it("lists the account's active keys oldest first, masked, every field present", async () => {
      const account = await t.createAccount({ permissions: ['read', 'write'] });
      const first = await issueKey(account, { name: 'first', permissions: ['read'] });
      clock.advance(1000);
      const second = await issueKey(account, { name: 'second', expires_in_days: 7 });
      clock.advance(1000);
      const third = await issueKey(account, { name: 'third' });

      const res = await list(second);
      expect(res.status).toBe(200);
      expect(res.body.map((key: { id: number }) => key.id)).toEqual([first.id, second.id, third.id]);
      for (const key of res.body) expect(Object.keys(key).sort()).toEqual(API_KEY_FIELDS);
      expect(res.body[0]).toMatchObject({
        token: masked(first.token),
        name: 'first',
        permissions: ['read'],
        expires_at: null,
      });
      expect(res.body[1]).toMatchObject({
        token: masked(second.token),
        name: 'second',
        permissions: ['read', 'write'],
      });
      expect(Date.parse(res.body[1].expires_at) - Date.parse(res.body[1].created_at)).toBe(7 * DAY_MS);
      expect(res.body[2].token).toBe(masked(third.token));
    });

    it('never shows a full token, nor anything longer than its mask', async () => {
      const account = await t.createAccount();
      const keys = [await issueKey(account), await issueKey(account)];
      const res = await list(keys[0]).expect(200);
      const text = JSON.stringify(res.body);
      for (const key of keys) {
        expect(text).not.toContain(key.token);
        expect(text).not.toContain(key.token.slice(0, 9));
      }
    });

    it('shows only keys of the account that asks', async () => {
      const mine = await issueKey(await t.createAccount());
      const theirs = await issueKey(await t.createAccount());
      const res = await list(mine).expect(200);
      expect(res.body.map((key: { id: number }) => key.id)).toEqual([mine.id]);
      expect(res.body.map((key: { id: number }) => key.id)).not.toContain(theirs.id);
    });

    it('needs no permission: a key without any may list its account', async () => {
      const account = await t.createAccount({ permissions: [] });
      const key = await issueKey(account);
      const res = await list(key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([expect.objectContaining({ id: key.id, permissions: [] })]);
    });

    it('shows when a key was last used', async () => {
      const key = await issueKey(await t.createAccount());
      // The use is recorded without holding up the request that made it, so look a few times.
      let lastUsedAt: string | null = null;
      for (let attempt = 0; attempt < 20 && lastUsedAt === null; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        lastUsedAt = (await list(key).expect(200)).body[0].last_used_at;
      }
      expect(lastUsedAt).toBe(clock.now().toISOString());
    });

    it('leaves out revoked keys', async () => {
      const account = await t.createAccount();
      const kept = await issueKey(account);
      const revoked = await issueKey(account);
      await revoke(kept, revoked.id).expect(200);
      const res = await list(kept).expect(200);
      expect(res.body.map((key: { id: number }) => key.id)).toEqual([kept.id]);
    });

    it('leaves out expired keys', async () => {
      const account = await t.createAccount();
      const lasting = await issueKey(account);
      const expiring = await issueKey(account, { expires_in_days: 1 });
      const before = await list(lasting).expect(200);
      expect(before.body.map((key: { id: number }) => key.id)).toEqual([lasting.id, expiring.id]);

      clock.advance(DAY_MS + 1000);
      const after = await list(lasting).expect(200);
      expect(after.body.map((key: { id: number }) => key.id)).toEqual([lasting.id]);
    });
  });

  describe('DELETE /keys', () => {
    it('revokes the key used and answers 200 with it, masked', async () => {
      const account = await t.createAccount();
      const key = await issueKey(account, { name: 'to revoke' });
      const res = await revokeOwn(key);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(API_KEY_FIELDS);
      expect(res.body).toMatchObject({ id: key.id, token: masked(key.token), name: 'to revoke' });
      expect(JSON.stringify(res.body)).not.toContain(key.token);
    });

    it('refuses the revoked key at once, on every endpoint', async () => {
      const account = await t.createAccount({ permissions: ['read'] });
      const key = await issueKey(account);
      await revokeOwn(key).expect(200);
      for (const res of [
        await list(key),
        await revokeOwn(key),
        await request(t.app).get('/people').set('Authorization', `Bearer ${key.token}`),
      ]) {
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN);
      }
    });

    it("leaves the account's other keys working", async () => {
      const account = await t.createAccount();
      const other = await issueKey(account);
      const used = await issueKey(account);
      await revokeOwn(used).expect(200);
      const res = await list(other).expect(200);
      expect(res.body.map((key: { id: number }) => key.id)).toEqual([other.id]);
    });
  });

  describe('DELETE /keys/:id', () => {
    it('revokes another key of the same account and answers 200 with it, masked', async () => {
      const account = await t.createAccount();
      const used = await issueKey(account);
      const target = await issueKey(account, { name: 'old laptop' });
      const res = await revoke(used, target.id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: target.id, token: masked(target.token), name: 'old laptop' });

      await list(target).expect(401);
      await list(used).expect(200);
    });

    it('may revoke the key used for the request itself', async () => {
      const key = await issueKey(await t.createAccount());
      await revoke(key, key.id).expect(200);
      await list(key).expect(401);
    });

    it("answers 404 for another account's key and leaves it working", async () => {
      const mine = await issueKey(await t.createAccount());
      const theirs = await issueKey(await t.createAccount());
      const res = await revoke(mine, theirs.id);
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual([expect.any(String)]);
      await list(theirs).expect(200);
    });

    it('answers 404 for an unknown key and for a key already revoked', async () => {
      const account = await t.createAccount();
      const used = await issueKey(account);
      const gone = await issueKey(account);
      await revoke(used, gone.id).expect(200);
      expect((await revoke(used, gone.id)).status).toBe(404);
      expect((await revoke(used, 2_147_483_647)).status).toBe(404);
    });

    it.each(['abc', '0', '-1', '1.5', '01', '1e3', '2147483648', '99999999999999999999'])(
      'answers 400 when the id is %s, which names no key',
      async (id) => {
        const key = await issueKey(await t.createAccount());
        const res = await revoke(key, id);
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([expect.stringContaining('id')]);
      },
    );

    it('needs a valid bearer token', async () => {
      const res = await request(t.app).delete('/keys/1');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(BEARER_CHALLENGE);
    });

    it('answers other methods with 405 and Allow', async () => {
      const key = await issueKey(await t.createAccount());
      const res = await request(t.app).get(`/keys/${key.id}`).set('Authorization', `Bearer ${key.token}`);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('DELETE, OPTIONS');
      expect(res.body.errors).toEqual([expect.any(String)]);
    });
  });
});
