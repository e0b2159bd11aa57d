import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { createTestApp, newPerson, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

type Method = 'get' | 'post' | 'patch';

/** Every route that reads a body, with the credentials it takes. */
interface BodyRoute {
  method: Method;
  path: string;
  basic?: boolean;
}

/** helmet's default policy, without upgrade-insecure-requests: these requests come over plain HTTP. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';" +
  "img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline'";
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number, leaf = '"x"') => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

function polluted(): unknown {
  return ({} as Record<string, unknown>).polluted ?? (Object.prototype as Record<string, unknown>).polluted;
}

describe.each(testDatabases)('hostile input on $name', (target) => {
  let t: TestApp;
  let token: string;
  let basic: string;
  let routes: BodyRoute[];

  beforeAll(async () => {
    t = await createTestApp(target);
    const account = await t.createAccount();
    token = await t.issueToken(account.username, account.password);
    basic = `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`;
    const [id] = await t.addPeople([newPerson({ firstName: 'Untouched' })]);
    routes = [
      { method: 'get', path: '/people' },
      { method: 'post', path: '/people/search' },
      { method: 'patch', path: `/people/${id}` },
      { method: 'post', path: '/keys', basic: true },
    ];
  });
  afterAll(async () => {
    expect(polluted()).toBeUndefined();
    await t.close();
  });

  const send = (route: BodyRoute, contentType: string, body: string) =>
    request(t.app)
      [route.method](route.path)
      .set('Authorization', route.basic ? basic : `Bearer ${token}`)
      .set('Content-Type', contentType)
      .send(body);

  function expectErrorAnswer(res: request.Response, status: number, message?: string) {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ errors: [message ?? expect.any(String)] });
    // helmet's headers, and nothing that names the framework.
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(res.headers['x-powered-by']).toBeUndefined();
  }

  const cases: [string, string, string, number, string | undefined][] = [
    ['malformed JSON', 'application/json', '{"a": ', 400, 'the request body is not valid JSON'],
    ['a JSON array', 'application/json', '[1, 2]', 400, 'the request body must be a JSON object'],
    ['a bare JSON string', 'application/json', '"x"', 400, undefined],
    ['a body over 16 KiB', 'application/json', JSON.stringify({ x: 'y'.repeat(16 * 1024) }), 413, undefined],
    ['a form over 16 KiB', 'application/x-www-form-urlencoded', `x=${'y'.repeat(16 * 1024)}`, 413, undefined],
    ['plain text', 'text/plain', 'hello', 415, undefined],
    ['XML', 'application/xml', '<person/>', 415, undefined],
    ['multipart', 'multipart/form-data; boundary=x', '--x\r\n\r\nhi\r\n--x--', 415, undefined],
    [
      'arrays nested 7000 deep',
      'application/json',
      deepArray(7000),
      400,
      'the request body must be a JSON object',
    ],
    [
      'objects nested 2500 deep',
      'application/json',
      deepObject(2500),
      400,
      'the request body is nested more than 32 levels deep',
    ],
    [
      'an array value nested 7000 deep',
      'application/json',
      `{"person": {"first_name": ${deepArray(7000)}}}`,
      400,
      'the request body is nested more than 32 levels deep',
    ],
  ];

  describe.each(cases)('a body of %s', (_title, contentType, body, status, message) => {
    it.each([0, 1, 2, 3])('is answered with the Error body on body route %#', async (index) => {
      expectErrorAnswer(await send(routes[index], contentType, body), status, message);
    });
  });

  describe('the NUL character, which PostgreSQL text cannot hold', () => {
    const NUL = 'must not contain the NUL character (U+0000)';
    // Each body on the routes that know its field, and the message naming that field; every other
    // route refuses the key itself.
    it.each([
      ['{"last_name": "a\\u0000b"}', [0, 1], `last_name ${NUL}`],
      ['{"email": "\\u0000"}', [0, 1], `email ${NUL}`],
      ['{"person": {"first_name": "x\\u0000"}}', [2], `first_name ${NUL}`],
      ['{"person[chat_id]": "\\u0000"}', [2], `chat_id ${NUL}`],
      ['{"name": "key\\u0000"}', [3], `name ${NUL}`],
      ['{"a\\u0000": "x"}', [], ''],
    ])('in the JSON body %s is a 400 on every body route, naming the field', async (body, known, message) => {
      for (const [index, route] of routes.entries()) {
        const res = await send(route, 'application/json', body);
        expectErrorAnswer(res, 400, known.includes(index) ? message : expect.stringContaining('unknown key'));
      }
    });

    it('in a form body is a 400', async () => {
      expectErrorAnswer(
        await send(routes[2], 'application/x-www-form-urlencoded', 'person[chat_id]=a%00b'),
        400,
        `chat_id ${NUL}`,
      );
    });

    it.each(['email', 'first_name', 'last_name', 'chat_id'])(
      'in the query parameter %s is a 400 naming it',
      async (key) => {
        const res = await request(t.app).get(`/people?${key}=a%00b`).set('Authorization', `Bearer ${token}`);
        expectErrorAnswer(res, 400, `${key} ${NUL}`);
      },
    );

    it.each(['active', 'limit', 'a%00'])('in the query parameter %s is a 400', async (key) => {
      const res = await request(t.app).get(`/people?${key}=a%00b`).set('Authorization', `Bearer ${token}`);
      expectErrorAnswer(res, 400);
    });

    it('in Basic credentials is a 401', async () => {
      for (const credentials of ['us\u0000er:password', 'user:pass\u0000word']) {
        const res = await request(t.app)
          .post('/keys')
          .set('Authorization', `Basic ${Buffer.from(credentials).toString('base64')}`);
        expectErrorAnswer(res, 401);
      }
    });
  });

  describe('error bodies hold at most 20 messages', () => {
    const manyKeys = (count: number) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`_${i.toString(36)}`, 0])));

    function expectBounded(res: request.Response, problems: number): void {
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(20);
      expect(res.body.errors.slice(0, 19)).toEqual(Array(19).fill(expect.stringContaining('unknown')));
      expect(res.body.errors[19]).toBe(`… and ${problems - 19} more problems`);
      // The bodies that made the review's 193 KB and 40 KB answers.
      expect(res.text.length).toBeLessThan(4096);
    }

    it.each([0, 1, 2, 3])('a JSON body of 1,700 unknown keys gets 20 on body route %#', async (index) => {
      const body = manyKeys(1700);
      expect(body.length).toBeLessThan(16 * 1024);
      expectBounded(await send(routes[index], 'application/json', body), 1700);
    });

    it('a nested person of 1,000 unknown keys gets 20', async () => {
      const res = await send(routes[2], 'application/json', `{"person": ${manyKeys(1000)}}`);
      expectBounded(res, 1000);
    });

    it('a form of 60 unknown keys gets 20', async () => {
      const form = Array.from({ length: 60 }, (_, i) => `k${i}=x`).join('&');
      expectBounded(await send(routes[2], 'application/x-www-form-urlencoded', form), 60);
    });

    it('a query string of 500 unknown parameters gets 20', async () => {
      const query = Array.from({ length: 500 }, (_, i) => `k${i}=x`).join('&');
      const res = await request(t.app).get(`/people?${query}`).set('Authorization', `Bearer ${token}`);
      expectBounded(res, 500);
    });

    it('exactly 20 problems are all shown', async () => {
      const res = await send(routes[1], 'application/json', manyKeys(20));
      expect(res.body.errors).toHaveLength(20);
      expect(res.body.errors.every((message: string) => message.startsWith('unknown key'))).toBe(true);
    });
  });

  describe('compressed bodies', () => {
    it.each(['gzip', 'deflate', 'br'])(
      'a body that does not decompress as %s says is a 400',
      async (encoding) => {
        for (const route of routes) {
          const res = await request(t.app)
            [route.method](route.path)
            .set('Authorization', route.basic ? basic : `Bearer ${token}`)
            .set('Content-Type', 'application/json')
            .set('Content-Encoding', encoding)
            .send('{"last_name": "plain"}');
          expectErrorAnswer(res, 400, 'the request body does not decompress as its Content-Encoding says');
        }
      },
    );

    it('a body that does decompress is read', async () => {
      // Sent by hand: superagent would serialise a Buffer as JSON under a JSON content type.
      const server = t.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const body = gzipSync('{"first_name": "Untouched"}');
          const req = http.request(
            {
              host: '127.0.0.1',
              port: (server.address() as AddressInfo).port,
              method: 'POST',
              path: '/people/search',
              headers: {
                Authorization: `Bearer ${token}`,
                'Content-Type': 'application/json',
                'Content-Encoding': 'gzip',
                'Content-Length': body.length,
              },
            },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () =>
                resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
              );
            },
          );
          req.on('error', reject);
          req.end(body);
        });
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.body).map((person: { first_name: string }) => person.first_name)).toEqual([
          'Untouched',
        ]);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('prototype pollution', () => {
    const jsonBodies = [
      '{"__proto__": {"polluted": 1}}',
      '{"constructor": {"prototype": {"polluted": 1}}}',
      '{"person": {"__proto__": {"polluted": 1}}}',
      '{"person": {"first_name": "x", "constructor": {"prototype": {"polluted": 1}}}}',
      '{"permissions": [{"__proto__": {"polluted": 1}}]}',
      '{"prototype": {"polluted": 1}}',
    ];
    it.each(jsonBodies)('refuses the JSON body %s with 400 on every body route', async (body) => {
      for (const route of routes) {
        const res = await send(route, 'application/json', body);
        expectErrorAnswer(
          res,
          400,
          expect.stringMatching(/^the key "(__proto__|constructor|prototype)" is not allowed$/),
        );
      }
      expect(polluted()).toBeUndefined();
    });

    it.each([
      '__proto__=1',
      '__proto__[polluted]=1',
      'constructor[prototype][polluted]=1',
      'person[first_name]=x&__proto__=y',
    ])('refuses the form body %s with 400', async (body) => {
      const res = await send(routes[2], 'application/x-www-form-urlencoded', body);
      expectErrorAnswer(res, 400);
      expect(polluted()).toBeUndefined();
    });

    it.each([
      '__proto__=1',
      '__proto__[polluted]=1',
      'constructor[prototype][polluted]=1',
      'constructor=1',
      'last_name=x&__proto__=1',
    ])('refuses the query string ?%s with 400 instead of ignoring it', async (query) => {
      const res = await request(t.app).get(`/people?${query}`).set('Authorization', `Bearer ${token}`);
      expectErrorAnswer(res, 400, expect.stringContaining('unknown query parameter'));
      expect(polluted()).toBeUndefined();
    });

    it('leaves the person untouched after every attempt', async () => {
      const res = await request(t.app).get(routes[2].path).set('Authorization', `Bearer ${token}`);
      expect(res.body.first_name).toBe('Untouched');
    });
  });
});
