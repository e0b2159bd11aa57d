import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { createTestApp, newPerson, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(testDatabases)('HTTP protocol details on $name', (target) => {
  let t: TestApp;
  let token: string;
  const logLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    t = await createTestApp(target, { overrides: { logger: pino({ level: 'info' }, sink) } });
    token = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  describe('health', () => {
    it('GET /healthz answers ok with the release package.json names', async () => {
      const res = await request(t.app).get('/healthz');
      expect(res.status).toBe(200);
      const { version } = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));
      expect(res.body).toEqual({ status: 'ok', version });
    });

    it('GET /readyz answers ok while the database answers', async () => {
      const res = await request(t.app).get('/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    });
  });

  describe('headers on every answer', () => {
    it.each([
      ['a success', '/healthz'],
      ['a 404', '/nowhere'],
      ['a 401', '/people'],
    ])('on %s: API-Version, a request id, JSON, no X-Powered-By', async (_title, path) => {
      const res = await request(t.app).get(path);
      expect(res.headers['api-version']).toBe('1.0.0');
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it.each([
      ['a plain one', 'client-id_1.2:3'],
      ['a GUID in braces', '{3f2504e0-4f89-11d3-9a0c-0305e82c3301}'],
      ['one with spaces', 'batch 42'],
      ['one with quotes and backslashes', 'a "quoted" \\ id'],
      [
        'every visible ASCII character',
        Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join(''),
      ],
      ['200 characters', 'a'.repeat(200)],
    ])('echoes %s', async (_title, id) => {
      const res = await request(t.app).get('/healthz').set('X-Request-Id', id);
      expect(res.headers['x-request-id']).toBe(id);
    });

    // Other control characters never get this far: Node's parser refuses the request (400).
    it.each([
      ['too long', 'a'.repeat(201)],
      ['with a tab', 'a\tb'],
      ['not ASCII', 'caf\u00e9'],
    ])('replaces a request id that is %s', async (_title, id) => {
      const res = await request(t.app).get('/healthz').set('X-Request-Id', id);
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    it('writes an echoed request id into the log line as it came', async () => {
      const id = '{batch 42} "x"';
      await request(t.app).get('/healthz').set('X-Request-Id', id);
      expect(logLines.filter((line) => line.requestId === id)).toHaveLength(1);
    });
  });

  describe('routes and methods', () => {
    it('answers 404 with the Error body for an unknown path', async () => {
      const res = await request(t.app).get('/persons').set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ errors: [expect.any(String)] });
    });

    it.each([
      ['DELETE', '/people', 'GET, POST, HEAD, OPTIONS'],
      ['PUT', '/people', 'GET, POST, HEAD, OPTIONS'],
      ['PUT', '/people/1', 'GET, PATCH, DELETE, HEAD, OPTIONS'],
      ['GET', '/people/search', 'POST, OPTIONS'],
      ['POST', '/healthz', 'GET, HEAD, OPTIONS'],
      ['PUT', '/keys', 'GET, POST, DELETE, HEAD, OPTIONS'],
    ])('answers %s %s with 405 and Allow', async (method, path, allow) => {
      const res = await request(t.app)
        [method.toLowerCase() as 'get'](path)
        .set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.body).toEqual({ errors: [expect.stringContaining(method)] });
    });

    it('answers OPTIONS with 204 and Allow', async () => {
      const res = await request(t.app).options('/people/1');
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('GET, PATCH, DELETE, HEAD, OPTIONS');
    });

    it('answers HEAD /people like GET, without a body', async () => {
      const res = await request(t.app).head('/people').set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.text).toBeUndefined();
    });
  });

  describe('authentication', () => {
    it.each([
      ['GET', '/people'],
      ['POST', '/people/search'],
      ['GET', '/people/1'],
      ['PATCH', '/people/1'],
      ['GET', '/keys'],
      ['DELETE', '/keys'],
      ['DELETE', '/keys/1'],
      ['POST', '/keys'],
    ])('%s %s without credentials answers 401 with a challenge', async (method, path) => {
      const res = await request(t.app)[method.toLowerCase() as 'get'](path);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^(Bearer|Basic) realm="membership-directory"/);
      expect(res.body).toEqual({ errors: [expect.any(String)] });
    });

    it('answers 401 to an unknown bearer token', async () => {
      const res = await request(t.app).get('/people').set('Authorization', 'Bearer mdk_notarealtoken');
      expect(res.status).toBe(401);
    });
  });

  describe('request bodies', () => {
    it('answers 413 to a body over 16 KiB', async () => {
      const res = await request(t.app)
        .patch('/people/1')
        .set('Authorization', `Bearer ${token}`)
        .send({ person: { first_name: 'x'.repeat(17 * 1024) } });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ errors: [expect.stringContaining('16 KiB')] });
    });

    it('accepts a body just under 16 KiB as far as the parser goes', async () => {
      const res = await request(t.app)
        .post('/people/search')
        .set('Authorization', `Bearer ${token}`)
        .send({ last_name: 'x'.repeat(15 * 1024) });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toContain('last_name must be at most 255');
    });

    it('answers 400 to malformed JSON, without the parser message', async () => {
      const res = await request(t.app)
        .patch('/people/1')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send('{"person[first_name]": ');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: ['the request body is not valid JSON'] });
    });

    it('answers 415 to JSON in a charset other than UTF-8', async () => {
      const res = await request(t.app)
        .patch('/people/1')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json; charset=latin1')
        .send('{}');
      expect(res.status).toBe(415);
    });

    it('refuses a prototype key anywhere in a body', async () => {
      const res = await request(t.app)
        .post('/people/search')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send('{"last_name": "x", "__proto__": {"admin": true}}');
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toContain('__proto__');
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    });
  });

  describe('the request log', () => {
    it('writes one line per request with its id, route, status and key, and never the token', async () => {
      const [id] = await t.addPeople([newPerson()]);
      const res = await request(t.app)
        .get(`/people/${id}?secret=1`)
        .set('Authorization', `Bearer ${token}`)
        .set('X-Request-Id', 'log-test-1');
      expect(res.status).toBe(200);
      const lines = logLines.filter((line) => line.requestId === 'log-test-1');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        method: 'GET',
        path: `/people/${id}`,
        route: '/people/:id',
        status: 200,
        durationMs: expect.any(Number),
        keyId: expect.any(Number),
      });
      const everything = JSON.stringify(logLines);
      expect(everything).not.toContain(token);
      expect(everything).not.toContain('secret=1');
    });
  });
});

describe.each(testDatabases)('after the database is closed on $name', (target) => {
  it('/readyz answers 503 with the Error body and /healthz still answers', async () => {
    const t = await createTestApp(target);
    await t.close();
    const ready = await request(t.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ errors: [expect.any(String)] });
    expect((await request(t.app).get('/healthz')).status).toBe(200);
  });
});

/** A TCP relay to PostgreSQL that a test can cut and restore, to play an outage. */
async function relayTo(url: string) {
  const upstream = new URL(url);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const backend = connect(Number(upstream.port || 5432), upstream.hostname);
    for (const socket of [client, backend]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(backend).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(port);
  return {
    url: relayed.toString(),
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    restore: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
  };
}

const postgres = testDatabases.filter((target) => target.name === 'postgres');

(postgres.length > 0 ? describe.each(postgres) : describe.skip.each([{ name: 'postgres', url: '' }]))(
  'when PostgreSQL becomes unreachable ($name)',
  (target) => {
    it('answers 503 with the Error body meanwhile, and recovers by itself', async () => {
      const relay = await relayTo(target.url!);
      const t = await createTestApp({ name: 'postgres', url: relay.url });
      try {
        const token = await t.tokenWith(['read']);
        const search = () => request(t.app).get('/people?limit=1').set('Authorization', `Bearer ${token}`);
        expect((await search()).status).toBe(200);

        await relay.cut();
        const during = await search();
        expect(during.status).toBe(503);
        expect(during.body).toEqual({ errors: ['the database is unavailable; try again'] });
        expect((await request(t.app).get('/readyz')).status).toBe(503);

        await relay.restore();
        expect((await search()).status).toBe(200);
        expect((await request(t.app).get('/readyz')).status).toBe(200);
      } finally {
        await relay.restore().catch(() => undefined);
        await t.close();
        await relay.cut();
      }
    });
  },
);
