import request from 'supertest';
import { IssueKey } from '../../../src/application/keys/issue-key';
import type { AccountRepository } from '../../../src/application/ports/account-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import { createTestApp, type TestAccount, type TestApp } from '../../support/app';
import { BASIC_CHALLENGE } from '../../support/challenges';
import { testDatabases } from '../../support/databases';
import { FakeClock } from '../../unit/support/fake-clock';

const API_KEY_FIELDS = ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'permissions', 'token'];
const TOKEN_SHAPE = /^mdk_[0-9A-Za-z]{38}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY_MS = 24 * 60 * 60 * 1000;

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

let addressSequence = 0;

/**
 * A client address no other test uses. The app trusts X-Forwarded-For from loopback (supertest's
 * address) here, so each test counts failed logins against its own address and tests cannot
 * throttle one another.
 */
function freshAddress(): string {
  addressSequence += 1;
  return `10.${(addressSequence >> 16) & 255}.${(addressSequence >> 8) & 255}.${addressSequence & 255}`;
}

describe.each(testDatabases)('issuing keys with POST /keys on $name', (target) => {
  let t: TestApp;
  const clock = new FakeClock();

  beforeAll(async () => {
    t = await createTestApp(target, { env: { TRUST_PROXY: 'loopback' }, overrides: { clock } });
  });
  afterAll(() => t.close());

  function issue(
    account: Pick<TestAccount, 'username' | 'password'>,
    body?: object,
    address = freshAddress(),
  ) {
    const req = request(t.app)
      .post('/keys')
      .set('X-Forwarded-For', address)
      .set('Authorization', basic(account.username, account.password));
    return body === undefined ? req : req.send(body);
  }

  describe('a successful issue', () => {
    it('answers 201 with the key and its full token, every field present', async () => {
      const account = await t.createAccount({ permissions: ['read', 'write'] });
      const res = await issue(account);
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Object.keys(res.body).sort()).toEqual(API_KEY_FIELDS);
      expect(res.body).toMatchObject({
        name: null,
        permissions: ['read', 'write'],
        expires_at: null,
        last_used_at: null,
      });
      expect(res.body.id).toEqual(expect.any(Number));
      expect(res.body.token).toMatch(TOKEN_SHAPE);
      expect(res.body.created_at).toMatch(ISO_INSTANT);
    });

    it('gives a token that authenticates GET /people at once', async () => {
      const account = await t.createAccount({ permissions: ['read'] });
      const { body } = await issue(account).expect(201);
      const res = await request(t.app).get('/people').set('Authorization', `Bearer ${body.token}`);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
    });

    it('gives a different token every time', async () => {
      const account = await t.createAccount();
      const first = await issue(account).expect(201);
      const second = await issue(account).expect(201);
      expect(second.body.token).not.toBe(first.body.token);
      expect(second.body.id).not.toBe(first.body.id);
    });

    it('accepts the Basic scheme in any case and a password with colons and non-ASCII characters', async () => {
      const account = await t.createAccount({ password: 'pä:ss:wörd ✓' });
      const header = basic(account.username, account.password).replace('Basic', 'bAsIc');
      const res = await request(t.app)
        .post('/keys')
        .set('X-Forwarded-For', freshAddress())
        .set('Authorization', header);
      expect(res.status).toBe(201);
    });

    it('treats an empty JSON object or an empty JSON body like no body', async () => {
      const account = await t.createAccount({ permissions: ['read'] });
      await issue(account, {}).expect(201);
      const res = await request(t.app)
        .post('/keys')
        .set('X-Forwarded-For', freshAddress())
        .set('Authorization', basic(account.username, account.password))
        .set('Content-Type', 'application/json')
        .send('');
      expect(res.status).toBe(201);
      expect(res.body.permissions).toEqual(['read']);
    });
  });

  describe('body options', () => {
    it('keeps the name and sets expires_at that many days after created_at', async () => {
      const account = await t.createAccount();
      const res = await issue(account, { name: 'observatory laptop', expires_in_days: 30 });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('observatory laptop');
      const lifetime = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
      expect(lifetime).toBe(30 * DAY_MS);
    });

    it('issues a key with only the permissions asked for, a subset of the account', async () => {
      const account = await t.createAccount({ permissions: ['read', 'write'] });
      const res = await issue(account, { permissions: ['read'] });
      expect(res.status).toBe(201);
      expect(res.body.permissions).toEqual(['read']);
    });

    it('issues a key with no permissions when asked for none', async () => {
      const account = await t.createAccount({ permissions: ['read', 'write'] });
      const res = await issue(account, { permissions: [] });
      expect(res.status).toBe(201);
      expect(res.body.permissions).toEqual([]);
    });

    it('refuses with 400 a permission the account lacks, naming it, and issues nothing', async () => {
      const account = await t.createAccount({ permissions: ['read'] });
      const res = await issue(account, { permissions: ['read', 'write'] });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.stringContaining('write')]);
      const bearer = `Bearer ${await t.issueToken(account.username, account.password)}`;
      const keys = await request(t.app).get('/keys').set('Authorization', bearer).expect(200);
      expect(keys.body).toHaveLength(1);
    });

    it.each([
      ['expires_in_days 0', { expires_in_days: 0 }, 'expires_in_days'],
      ['expires_in_days 366', { expires_in_days: 366 }, 'expires_in_days'],
      ['expires_in_days not whole', { expires_in_days: 1.5 }, 'expires_in_days'],
      ['expires_in_days as a string', { expires_in_days: '30' }, 'expires_in_days'],
      ['a name that is not a string', { name: 7 }, 'name'],
      ['a name over 100 characters', { name: 'x'.repeat(101) }, 'name'],
      ['permissions as a string', { permissions: 'read' }, 'permissions'],
      ['permissions as a number', { permissions: 5 }, 'permissions'],
      ['permissions as a boolean', { permissions: true }, 'permissions'],
      ['permissions as an object', { permissions: {} }, 'permissions'],
      ['permissions holding a number', { permissions: ['read', 5] }, 'permissions'],
      ['an unknown permission', { permissions: ['admin'] }, 'admin'],
      ['an unknown key', { name: 'ok', scope: 'all' }, '"scope"'],
    ])('refuses %s with 400 naming it', async (_title, body, named) => {
      const account = await t.createAccount();
      const res = await issue(account, body);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.stringContaining(named)]);
    });

    it('accepts expires_in_days at both ends of its range', async () => {
      const account = await t.createAccount();
      await issue(account, { expires_in_days: 1 }).expect(201);
      await issue(account, { expires_in_days: 365 }).expect(201);
    });

    it('refuses a body that is not a JSON object with 400', async () => {
      const account = await t.createAccount();
      const res = await issue(account, ['read']);
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(1);
    });

    it('refuses malformed JSON with 400', async () => {
      const account = await t.createAccount();
      const res = await issue(account).set('Content-Type', 'application/json').send('{"name":');
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(1);
    });

    it('refuses a body that is not JSON with 415', async () => {
      const account = await t.createAccount();
      const res = await issue(account).type('form').send('name=laptop');
      expect(res.status).toBe(415);
      expect(res.body.errors).toHaveLength(1);
    });
  });

  describe('credentials before the body', () => {
    const bodies: [string, string, string][] = [
      ['malformed JSON', 'application/json', '{"name":'],
      ['permissions that are not an array', 'application/json', '{"permissions": 5}'],
      ['an unknown key', 'application/json', '{"scope": "all"}'],
      ['a JSON array', 'application/json', '["read"]'],
      ['a form body', 'application/x-www-form-urlencoded', 'name=laptop'],
    ];

    it.each(bodies)(
      'answers %s without credentials with 401 and the Basic challenge',
      async (_t, type, body) => {
        const res = await request(t.app)
          .post('/keys')
          .set('X-Forwarded-For', freshAddress())
          .set('Content-Type', type)
          .send(body);
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
        expect(res.body).toEqual({ errors: ['missing basic credentials'] });
      },
    );

    it.each(bodies)('answers %s with a wrong password like any wrong password', async (_t, type, body) => {
      const account = await t.createAccount();
      const res = await issue({ username: account.username, password: 'not the password' })
        .set('Content-Type', type)
        .send(body);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
      expect(res.body).toEqual({ errors: ['wrong username or password'] });
    });
  });

  describe('wrong credentials', () => {
    it('answers a wrong password and an unknown username alike: 401, one message, the Basic challenge', async () => {
      const account = await t.createAccount();
      const wrongPassword = await issue({ username: account.username, password: 'not the password' });
      const unknownUser = await issue({ username: `nobody-${account.username}`, password: account.password });
      for (const res of [wrongPassword, unknownUser]) {
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
      }
      expect(wrongPassword.body.errors).toHaveLength(1);
      expect(unknownUser.body).toEqual(wrongPassword.body);
    });

    it('refuses a password longer than 72 bytes whose first 72 bytes are right, and counts it', async () => {
      const account = await t.createAccount({ password: 'p'.repeat(72) });
      const address = freshAddress();
      for (let i = 0; i < 10; i++) {
        const res = await issue(
          { username: account.username, password: `${account.password}${i}` },
          undefined,
          address,
        );
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ errors: ['wrong username or password'] });
      }
      // Ten failures: the address is locked out, as after any ten wrong passwords.
      expect((await issue(account, undefined, address)).status).toBe(429);
    });

    it('refuses a disabled account with the same 401 even with the right password', async () => {
      const account = await t.createAccount();
      const wrongPassword = await issue({ username: account.username, password: 'not the password' });
      await t.container
        .get<AccountRepository>(TYPES.AccountRepository)
        .update(account.personId, { disabled: true });
      const res = await issue(account);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
      expect(res.body).toEqual(wrongPassword.body);
    });

    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    it.each([
      ['no Authorization header', null],
      ['an empty Authorization header', ''],
      ['a Bearer token', 'Bearer mdk_abc'],
      ['the scheme alone', 'Basic'],
      ['characters outside base64', 'Basic !!!!'],
      ['base64 without its padding', `Basic ${b64('someone:pw').replace(/=+$/, '')}`],
      ['two spaces after the scheme', `Basic  ${b64('someone:pw')}`],
      ['a second word', `Basic ${b64('someone:pw')} extra`],
      ['credentials without a colon', `Basic ${b64('someone')}`],
      ['an empty username', `Basic ${b64(':pw')}`],
      ['credentials that are not UTF-8', `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}`],
    ])('refuses %s with 401 and the Basic challenge', async (_title, header) => {
      const req = request(t.app).post('/keys').set('X-Forwarded-For', freshAddress());
      const res = await (header === null ? req : req.set('Authorization', header));
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
      expect(res.body.errors).toEqual([expect.any(String)]);
    });
  });

  describe('throttling failed logins', () => {
    async function fail(username: string, address: string): Promise<void> {
      const res = await issue({ username, password: 'a wrong guess' }, undefined, address);
      expect(res.status).toBe(401);
    }

    function expectTooMany(res: request.Response): void {
      expect(res.status).toBe(429);
      const retryAfter = Number(res.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(res.body.errors).toEqual([expect.any(String)]);
    }

    it('after 10 failures for one username answers 429 with Retry-After, even to the right password', async () => {
      const account = await t.createAccount();
      for (let i = 0; i < 10; i++) await fail(account.username, freshAddress());
      expectTooMany(await issue(account));
      // Another account from a fresh address is not affected.
      await issue(await t.createAccount()).expect(201);
    });

    it('after 10 failures from one client address answers 429 to every username from it', async () => {
      const address = freshAddress();
      const account = await t.createAccount();
      for (let i = 0; i < 10; i++) await fail(`unknown-${i}-${account.username}`, address);
      expectTooMany(await issue(account, undefined, address));
      // The same account from another address is not affected.
      await issue(account).expect(201);
    });

    it('counts ::1, 127.0.0.1 and ::ffff:127.0.0.1 as one address', async () => {
      const account = await t.createAccount();
      const loopbacks = ['::1', '127.0.0.1', '::ffff:127.0.0.1'];
      for (let i = 0; i < 10; i++) await fail(`unknown-${i}-${account.username}`, loopbacks[i % 3]);
      for (const address of loopbacks) expectTooMany(await issue(account, undefined, address));
      // Frees loopback again for the tests after this one: t.issueToken signs in from 127.0.0.1.
      clock.advance(15 * 60 * 1000);
    });

    it('counts the IPv6 addresses of one /64 as one address, and another /64 apart', async () => {
      const account = await t.createAccount();
      for (let i = 0; i < 10; i++) await fail(`unknown-${i}-${account.username}`, `2001:db8:7:7::${i + 1}`);
      expectTooMany(await issue(account, undefined, '2001:db8:7:7:ffff:ffff:ffff:fffe'));
      await issue(account, undefined, '2001:db8:7:8::1').expect(201);
    });

    it('still lets the right password through after 9 failures', async () => {
      const account = await t.createAccount();
      for (let i = 0; i < 9; i++) await fail(account.username, freshAddress());
      await issue(account).expect(201);
    });

    it('lets the right password through again once the 15-minute window has passed', async () => {
      const account = await t.createAccount();
      for (let i = 0; i < 10; i++) await fail(account.username, freshAddress());
      expectTooMany(await issue(account));
      clock.advance(15 * 60 * 1000 + 1000);
      await issue(account).expect(201);
    });
  });

  describe('the limit of active keys', () => {
    it('answers 409 once the account holds 100 active keys, and issues again after a revocation', async () => {
      const account = await t.createAccount();
      // The first 99 straight from the use case: signing in for each is the tests' above.
      const issueKey = t.container.get(IssueKey);
      const tokens: string[] = [];
      for (let i = 0; i < 99; i++) {
        const { token } = await issueKey.execute({
          accountId: account.personId,
          name: null,
          permissions: null,
          expiresInDays: null,
        });
        tokens.push(token);
      }
      await issue(account).expect(201);

      const refused = await issue(account);
      expect(refused.status).toBe(409);
      expect(refused.body.errors).toEqual([expect.stringContaining('100')]);

      await request(t.app).delete('/keys').set('Authorization', `Bearer ${tokens[0]}`).expect(200);
      await issue(account).expect(201);
    });
  });
});
