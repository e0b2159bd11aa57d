import request from 'supertest';
import type { AccountRepository } from '../../../src/application/ports/account-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import { TokenCodec } from '../../../src/infrastructure/security/token-codec';
import { createTestApp, newPerson, type TestApp } from '../../support/app';
import { BEARER_CHALLENGE, INSUFFICIENT_SCOPE, INVALID_TOKEN } from '../../support/challenges';
import { testDatabases } from '../../support/databases';
import { FakeClock } from '../../unit/support/fake-clock';

const DAY_MS = 24 * 60 * 60 * 1000;

type Call = (app: TestApp['app'], authorization: string | null) => request.Test;

function withAuthorization(req: request.Test, authorization: string | null): request.Test {
  return authorization === null ? req : req.set('Authorization', authorization);
}

/** Every endpoint that takes a bearer token, each called the way a client would. */
const BEARER_ENDPOINTS: [string, Call][] = [
  ['GET /people', (app, auth) => withAuthorization(request(app).get('/people'), auth)],
  ['GET /people/1', (app, auth) => withAuthorization(request(app).get('/people/1'), auth)],
  [
    'PATCH /people/1',
    (app, auth) =>
      withAuthorization(request(app).patch('/people/1'), auth).send({ 'person[first_name]': 'X' }),
  ],
  ['GET /keys', (app, auth) => withAuthorization(request(app).get('/keys'), auth)],
  ['DELETE /keys', (app, auth) => withAuthorization(request(app).delete('/keys'), auth)],
  ['DELETE /keys/1', (app, auth) => withAuthorization(request(app).delete('/keys/1'), auth)],
];

/** A token of the right shape and checksum that was never issued. */
function unissuedToken(): string {
  return new TokenCodec().issue().token;
}

/** The same token with its last checksum character changed. */
function withBadChecksum(token: string): string {
  const last = token.at(-1);
  return token.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

describe.each(testDatabases)('bearer authentication on $name', (target) => {
  let t: TestApp;
  const clock = new FakeClock();

  beforeAll(async () => {
    t = await createTestApp(target, { overrides: { clock } });
  });
  afterAll(() => t.close());

  const accounts = () => t.container.get<AccountRepository>(TYPES.AccountRepository);

  describe('refusals without a usable token', () => {
    const cases: [string, () => string | null, string, string][] = [
      ['no Authorization header', () => null, 'missing bearer token', BEARER_CHALLENGE],
      ['an empty Authorization header', () => '', 'missing bearer token', BEARER_CHALLENGE],
      [
        'the Basic scheme',
        () => 'Basic dXNlcjpwYXNz',
        'authorization scheme must be Bearer',
        BEARER_CHALLENGE,
      ],
      ['another scheme', () => 'Token abc', 'authorization scheme must be Bearer', BEARER_CHALLENGE],
      ['the scheme alone', () => 'Bearer', 'malformed bearer token', INVALID_TOKEN],
      [
        'two tokens',
        () => `Bearer ${unissuedToken()} ${unissuedToken()}`,
        'malformed bearer token',
        INVALID_TOKEN,
      ],
      [
        'two spaces before the token',
        () => `Bearer  ${unissuedToken()}`,
        'malformed bearer token',
        INVALID_TOKEN,
      ],
      ['a quoted token', () => `Bearer "${unissuedToken()}"`, 'malformed bearer token', INVALID_TOKEN],
      ['a token with a comma', () => 'Bearer mdk_abc,def', 'malformed bearer token', INVALID_TOKEN],
    ];

    describe.each(BEARER_ENDPOINTS)('on %s', (_endpoint, call) => {
      it.each(cases)(
        'answers %s with 401, a message and the challenge',
        async (_title, header, message, challenge) => {
          const res = await call(t.app, header());
          expect(res.status).toBe(401);
          expect(res.headers['www-authenticate']).toBe(challenge);
          expect(res.body).toEqual({ errors: [message] });
        },
      );
    });
  });

  describe('refused tokens', () => {
    async function expectRefused(token: string): Promise<string[]> {
      const messages: string[] = [];
      for (const [endpoint, call] of BEARER_ENDPOINTS) {
        const res = await call(t.app, `Bearer ${token}`);
        expect({ endpoint, status: res.status }).toEqual({ endpoint, status: 401 });
        expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN);
        expect(res.body.errors).toEqual([expect.any(String)]);
        messages.push(res.body.errors[0]);
      }
      return messages;
    }

    it('refuses a well-formed token that was never issued', async () => {
      await expectRefused(unissuedToken());
    });

    it('refuses an issued token whose checksum was mistyped', async () => {
      const token = await t.tokenWith(['read']);
      await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`).expect(200);
      await expectRefused(withBadChecksum(token));
    });

    it('refuses a truncated token', async () => {
      const token = await t.tokenWith(['read']);
      await expectRefused(token.slice(0, -1));
    });

    it('refuses a revoked token', async () => {
      const token = await t.tokenWith(['read']);
      await request(t.app).delete('/keys').set('Authorization', `Bearer ${token}`).expect(200);
      await expectRefused(token);
    });

    it('refuses a token once it has expired, and not before', async () => {
      const account = await t.createAccount({ permissions: ['read'] });
      const token = await t.issueToken(account.username, account.password, { expires_in_days: 1 });
      clock.advance(DAY_MS - 1000);
      await request(t.app).get('/people').set('Authorization', `Bearer ${token}`).expect(200);
      clock.advance(2000);
      await expectRefused(token);
    });

    it('refuses every token of a disabled account', async () => {
      const account = await t.createAccount({ permissions: ['read'] });
      const token = await t.issueToken(account.username, account.password);
      await request(t.app).get('/people').set('Authorization', `Bearer ${token}`).expect(200);
      await accounts().update(account.personId, { disabled: true });
      const messages = await expectRefused(token);
      expect(messages[0]).toContain('disabled');
    });

    it('accepts the Bearer scheme in any case', async () => {
      const token = await t.tokenWith(['read']);
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        await request(t.app).get('/people').set('Authorization', `${scheme} ${token}`).expect(200);
      }
    });
  });

  describe('permissions', () => {
    let personId: number;
    const originalName = 'Caroline';

    beforeAll(async () => {
      [personId] = await t.addPeople([newPerson({ firstName: originalName })]);
    });

    const patch = (token: string, firstName: string) =>
      request(t.app)
        .patch(`/people/${personId}`)
        .set('Authorization', `Bearer ${token}`)
        .send({ 'person[first_name]': firstName });

    async function currentFirstName(): Promise<string> {
      const reader = await t.tokenWith(['read']);
      const res = await request(t.app).get(`/people/${personId}`).set('Authorization', `Bearer ${reader}`);
      return res.body.first_name;
    }

    function expectMissing(res: request.Response, permission: string): void {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(INSUFFICIENT_SCOPE);
      expect(res.body.errors).toEqual([expect.stringContaining(permission)]);
    }

    it('refuses a read-only key on PATCH /people/:id with 401 naming write, and changes nothing', async () => {
      expectMissing(await patch(await t.tokenWith(['read']), 'Changed'), 'write');
      expect(await currentFirstName()).toBe(originalName);
    });

    it('refuses a write-only key on GET /people and GET /people/:id with 401 naming read', async () => {
      const token = await t.tokenWith(['write']);
      expectMissing(await request(t.app).get('/people').set('Authorization', `Bearer ${token}`), 'read');
      expectMissing(
        await request(t.app).get(`/people/${personId}`).set('Authorization', `Bearer ${token}`),
        'read',
      );
    });

    it('lets a key with write change a person', async () => {
      const res = await patch(await t.tokenWith(['read', 'write']), 'Caro');
      expect(res.status).toBe(200);
      expect(res.body.first_name).toBe('Caro');
      await patch(await t.tokenWith(['write']), originalName).expect(200);
    });

    it('keeps the permissions chosen at issue: a read key of a read-write account cannot write', async () => {
      const account = await t.createAccount({ permissions: ['read', 'write'] });
      const token = await t.issueToken(account.username, account.password, { permissions: ['read'] });
      expectMissing(await patch(token, 'Changed'), 'write');
      await request(t.app).get('/people').set('Authorization', `Bearer ${token}`).expect(200);
    });

    it('does not widen a key when its account is granted more later', async () => {
      const account = await t.createAccount({ permissions: ['read'] });
      const token = await t.issueToken(account.username, account.password);
      await accounts().update(account.personId, { permissions: ['read', 'write'] });
      expectMissing(await patch(token, 'Changed'), 'write');
      expect(await currentFirstName()).toBe(originalName);
    });

    it('narrows a key at once when its account loses a permission', async () => {
      const account = await t.createAccount({ permissions: ['read', 'write'] });
      const token = await t.issueToken(account.username, account.password);
      await accounts().update(account.personId, { permissions: ['read'] });
      expectMissing(await patch(token, 'Changed'), 'write');
    });

    it('needs no permission to list or revoke keys', async () => {
      const token = await t.tokenWith([]);
      await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`).expect(200);
      await request(t.app).delete('/keys').set('Authorization', `Bearer ${token}`).expect(200);
    });
  });
});
