import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createTestApp, newPerson, type TestApp } from '../../support/app';
import { BEARER_CHALLENGE, INSUFFICIENT_SCOPE, INVALID_TOKEN } from '../../support/challenges';
import { testDatabases } from '../../support/databases';

const LIMIT = 3;

type Method = 'get' | 'head' | 'post' | 'patch' | 'delete';

/** A request that is wrong in every way a route could notice once it looks past the credentials. */
interface BadRequest {
  title: string;
  method: Method;
  path: string;
  contentType?: string;
  body?: string;
  headers?: Record<string, string>;
}

/** Every Bearer route, each asked something it would refuse with 400, 404, 412 or 415. */
function badRequests(absentId: number): BadRequest[] {
  const json = 'application/json';
  return [
    {
      title: 'GET /people with malformed JSON',
      method: 'get',
      path: '/people',
      contentType: json,
      body: '{"a": ',
    },
    {
      title: 'GET /people with an unknown key',
      method: 'get',
      path: '/people',
      contentType: json,
      body: '{"x": 1}',
    },
    { title: 'GET /people with a bad limit', method: 'get', path: '/people?limit=0' },
    { title: 'GET /people with an unknown parameter', method: 'get', path: '/people?nope=1' },
    { title: 'HEAD /people with a bad limit', method: 'head', path: '/people?limit=0' },
    { title: 'GET /people with text', method: 'get', path: '/people', contentType: 'text/plain', body: 'hi' },
    {
      title: 'GET /people with a JSON array',
      method: 'get',
      path: '/people',
      contentType: json,
      body: '[1]',
    },
    {
      title: 'POST /people/search with a prototype key',
      method: 'post',
      path: '/people/search',
      contentType: json,
      body: '{"__proto__": {}}',
    },
    {
      title: 'POST /people/search with XML',
      method: 'post',
      path: '/people/search',
      contentType: 'application/xml',
      body: '<a/>',
    },
    { title: 'GET /people/:id with a malformed id', method: 'get', path: '/people/abc' },
    { title: 'GET /people/:id of nobody', method: 'get', path: `/people/${absentId}` },
    {
      title: 'PATCH /people/:id with malformed JSON',
      method: 'patch',
      path: '/people/1',
      contentType: json,
      body: '{',
    },
    {
      title: 'PATCH /people/:id with an unknown key',
      method: 'patch',
      path: '/people/1',
      contentType: json,
      body: '{"x": "y"}',
    },
    {
      title: 'PATCH /people/:id with a malformed id',
      method: 'patch',
      path: '/people/0',
      contentType: json,
      body: '{}',
    },
    {
      title: 'PATCH /people/:id of nobody',
      method: 'patch',
      path: `/people/${absentId}`,
      contentType: json,
      body: '{"person[first_name]": "X"}',
    },
    {
      title: 'PATCH /people/:id with a malformed If-Match',
      method: 'patch',
      path: '/people/1',
      contentType: json,
      body: '{"person[first_name]": "X"}',
      headers: { 'If-Match': 'nonsense' },
    },
    {
      title: 'PATCH /people/:id with text',
      method: 'patch',
      path: '/people/1',
      contentType: 'text/plain',
      body: 'x',
    },
    { title: 'GET /changes with a malformed cursor', method: 'get', path: '/changes?after=nonsense' },
    { title: 'GET /changes with limit out of range', method: 'get', path: '/changes?limit=1001' },
    { title: 'DELETE /keys/:id with a malformed id', method: 'delete', path: '/keys/x' },
    { title: 'DELETE /keys/:id of no key', method: 'delete', path: `/keys/${absentId}` },
  ];
}

describe.each(testDatabases)('the order of checks on Bearer routes on $name', (target) => {
  let t: TestApp;
  let personId: number;
  const absentId = 2_000_000_000;

  beforeAll(async () => {
    t = await createTestApp(target, { env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
    [personId] = await t.addPeople([newPerson({ firstName: 'Unchanged' })]);
  });
  afterAll(() => t.close());

  function send(bad: BadRequest, authorization?: string): request.Test {
    const path = bad.path.replace('/people/1', `/people/${personId}`);
    let req = request(t.app)[bad.method](path);
    if (authorization !== undefined) req = req.set('Authorization', authorization);
    for (const [name, value] of Object.entries(bad.headers ?? {})) req = req.set(name, value);
    if (bad.contentType !== undefined) req = req.set('Content-Type', bad.contentType);
    return bad.body === undefined ? req : req.send(bad.body);
  }

  /** What a route needs: the permission named in its 401, or none (the key routes). */
  function permissionOf(bad: BadRequest): string | null {
    if (bad.path.startsWith('/keys')) return null;
    return bad.method === 'patch' ? 'write' : 'read';
  }

  describe.each(badRequests(absentId).map((bad) => [bad.title, bad] as const))('%s', (_title, bad) => {
    it('answers 401 with the challenge when no token is sent', async () => {
      const res = await send(bad);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(BEARER_CHALLENGE);
      if (bad.method !== 'head') expect(res.body).toEqual({ errors: ['missing bearer token'] });
    });

    it('answers 401 to a token that was never issued', async () => {
      const res = await send(bad, 'Bearer mdk_0000000000000000000000000000000000000000');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN);
    });

    it('answers 401 naming the missing permission before looking at the request', async () => {
      const permission = permissionOf(bad);
      if (permission === null) return;
      const token = await t.tokenWith(permission === 'write' ? ['read'] : ['write']);
      const res = await send(bad, `Bearer ${token}`);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(INSUFFICIENT_SCOPE);
      if (bad.method !== 'head') {
        expect(res.body).toEqual({ errors: [`this key lacks the ${permission} permission`] });
      }
    });

    it('answers 429 once the key has spent its budget, before looking at the request', async () => {
      const token = await t.tokenWith(['read', 'write']);
      for (let i = 0; i < LIMIT; i++)
        await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`);
      const res = await send(bad, `Bearer ${token}`);
      expect(res.status).toBe(429);
    });

    it('looks at the request once the key may make it', async () => {
      const token = await t.tokenWith(['read', 'write']);
      const res = await send(bad, `Bearer ${token}`);
      expect([400, 404, 412, 415]).toContain(res.status);
    });
  });

  it('refuses a missing permission before the rate limit: a spent read key still hears it lacks write', async () => {
    const token = await t.tokenWith(['read']);
    for (let i = 0; i < LIMIT; i++) await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`);
    const res = await request(t.app)
      .patch(`/people/${personId}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ 'person[first_name]': 'X' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ errors: ['this key lacks the write permission'] });
  });

  it('may answer a body declared over 16 KiB with 413 before authentication', async () => {
    const res = await request(t.app)
      .post('/people/search')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ last_name: 'x'.repeat(17 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ errors: ['the request body is larger than 16 KiB'] });
  });

  it('answers a body sent in chunks over 16 KiB with 401 without credentials and 413 with them', async () => {
    const token = await t.tokenWith(['read']);
    const server = t.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    // No Content-Length: the size is known only by reading, which waits for the credentials.
    const chunked = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/people/search',
            headers: { 'Content-Type': 'application/json', ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write(`{"last_name": "${'x'.repeat(9 * 1024)}`);
        req.end(`${'x'.repeat(9 * 1024)}"}`);
      });
    try {
      expect(await chunked({})).toBe(401);
      expect(await chunked({ Authorization: `Bearer ${token}` })).toBe(413);
    } finally {
      server.close();
    }
  });

  it('changes nothing when a key without write sends a good body', async () => {
    const token = await t.tokenWith(['read']);
    await request(t.app)
      .patch(`/people/${personId}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ 'person[first_name]': 'Changed' })
      .expect(401);
    const res = await request(t.app).get(`/people/${personId}`).set('Authorization', `Bearer ${token}`);
    expect(res.body.first_name).toBe('Unchanged');
  });
});
