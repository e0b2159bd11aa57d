import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { answerMalformedRequests } from '../../src/http/malformed-requests';
import { createTestApp, newPerson, type TestApp } from '../support/app';
import { testDatabases } from '../support/databases';

/**
 * Random requests against every route: whatever the method, path, query, headers or body, the
 * service answers below 500 (the database is up), every 4xx carries the Error body as JSON, and
 * no answer tells anything about the code, the framework or the database behind it.
 * FUZZ_RUNS raises the number of runs for a deeper search.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
  chunked: boolean;
}

interface Received {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(port: number, sent: Sent): Promise<Received> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...sent.headers };
    if (sent.body !== null) {
      // Node frames a body of GET, HEAD or DELETE only when told how.
      if (sent.chunked) headers['Transfer-Encoding'] = 'chunked';
      else headers['Content-Length'] = sent.body.length;
    }
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: sent.method,
        path: sent.path,
        headers,
        agent: false,
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    if (sent.body !== null && sent.chunked && sent.body.length >= 2) {
      // Two chunks, so that a chunked body really arrives in pieces (never an empty one, which
      // would end the body early).
      const middle = Math.floor(sent.body.length / 2);
      req.write(sent.body.subarray(0, middle));
      req.end(sent.body.subarray(middle));
    } else {
      req.end(sent.body ?? undefined);
    }
  });
}

// Signs of internals: a stack frame, a file path, the ORM, the driver, SQL, a JS error's own text.
const LEAKS: RegExp[] = [
  /\bat [^\s]+ \(/,
  /:\d+:\d+\)/,
  /node_modules/,
  /\/(work|src|dist|home|usr|tmp)\//,
  /\.[tj]s:\d+/,
  /QueryFailedError|EntityNotFound|TypeORM|typeorm/,
  /\b(SELECT|INSERT INTO|UPDATE\s+"?\w+"?\s+SET|DELETE FROM)\b/i,
  /relation "|column "|syntax error at|duplicate key value|violates|SQLSTATE/,
  /\bpg-|\bpglite\b|postgres/i,
  /\b(TypeError|RangeError|ReferenceError|SyntaxError)\b/,
  /Unexpected (token|end)|Maximum call stack|Cannot read prop/,
  /class-validator|class-transformer|body-parser|raw-body|inversify/i,
  /\[object Object\]/,
];

/** Patterns found in the answer that are not simply an echo of something the client sent. */
function leaksIn(text: string, sent: Sent): RegExp[] {
  const echoed = [
    sent.method,
    sent.path,
    ...Object.values(sent.headers),
    sent.body?.toString('utf8') ?? '',
  ].join('\n');
  let decoded = echoed;
  try {
    // As a form decodes: '+' is a space.
    decoded = decodeURIComponent(echoed.replaceAll('+', ' '));
  } catch {
    // Broken percent-encoding: compare with the raw text only.
  }
  return LEAKS.filter((pattern) => pattern.test(text) && !pattern.test(echoed) && !pattern.test(decoded));
}

function checkAnswer(sent: Sent, received: Received): void {
  const context = `${sent.method} ${sent.path} -> ${received.status} ${received.text.slice(0, 300)}`;
  if (received.status >= 500) throw new Error(`server error: ${context}`);
  if (received.headers['x-request-id'] === undefined) throw new Error(`no X-Request-Id: ${context}`);
  if (received.headers['api-version'] !== '1.0.0') throw new Error(`no API-Version: ${context}`);
  if (received.headers['x-powered-by'] !== undefined) throw new Error(`X-Powered-By: ${context}`);
  if (received.headers['x-content-type-options'] !== 'nosniff')
    throw new Error(`no helmet headers: ${context}`);

  if (received.status >= 400 && sent.method !== 'HEAD') {
    if (received.headers['content-type'] !== 'application/json; charset=utf-8') {
      throw new Error(`error answer is not JSON (${received.headers['content-type']}): ${context}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(received.text);
    } catch {
      throw new Error(`error answer is not valid JSON: ${context}`);
    }
    const errors = (body as { errors?: unknown }).errors;
    const shapeOk =
      typeof body === 'object' &&
      body !== null &&
      Object.keys(body).length === 1 &&
      Array.isArray(errors) &&
      errors.length > 0 &&
      errors.every((message) => typeof message === 'string' && message.length > 0);
    if (!shapeOk) throw new Error(`error answer is not {"errors": [strings]}: ${context}`);
    // Only error answers are searched: a success answer holds stored data, which earlier random
    // requests may have filled with any text at all.
    const leaks = leaksIn(received.text, sent);
    if (leaks.length > 0) throw new Error(`answer leaks ${leaks.join(', ')}: ${context}`);
  }
}

// ---- arbitraries ------------------------------------------------------------------------------

const printable = (maxLength: number) => fc.string({ maxLength });
/**
 * Any code point but a lone surrogate: the values, shrinks and "dangerous strings" of
 * `fc.string({ unit: 'binary' })`, whose built-in unit maps all 1,112,064 code points back to
 * their indexes on first use (about 1 s of CPU in every run of this file); this one computes it.
 */
const SURROGATES = 0x800;
const anyCodePoint = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (index) => String.fromCodePoint(index < 0xd800 ? index : index + SURROGATES),
  (value) => {
    const code = typeof value === 'string' ? value.codePointAt(0) : undefined;
    if (code === undefined || String.fromCodePoint(code) !== value || (code >= 0xd800 && code < 0xe000))
      throw new Error('not one code point');
    return code < 0xd800 ? code : code - SURROGATES;
  },
);
const anyText = (maxLength: number) =>
  fc.oneof(
    printable(maxLength),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: anyCodePoint, maxLength }),
    // Control characters, NUL above all, which PostgreSQL text cannot hold.
    fc
      .tuple(printable(maxLength / 2), fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u2028'))
      .map(([text, control]) => `${text}${control}${text}`),
  );
// Header values: printable ASCII and Latin-1, which is all HTTP lets a client put there.
const headerValue = (maxLength: number) =>
  fc.oneof(
    printable(maxLength),
    fc.string({
      unit: fc.integer({ min: 0xa0, max: 0xff }).map((code) => String.fromCharCode(code)),
      maxLength,
    }),
  );

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'];
const FILTER_KEYS = ['email', 'first_name', 'last_name', 'chat_id', 'active', 'has_chat', 'has_planner'];
const BODY_KEYS = [
  ...FILTER_KEYS,
  'person',
  'person[first_name]',
  'person[last_name]',
  'person[chat_id]',
  'person[planner_id]',
  'name',
  'permissions',
  'expires_in_days',
  'limit',
  'after',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
];

function idArbitrary(knownIds: number[]) {
  return fc.oneof(
    fc.constantFrom(...knownIds.map(String)),
    fc.integer({ min: -5, max: 200 }).map(String),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
    fc.constantFrom(
      '0',
      '01',
      '1.5',
      '1e3',
      '0x10',
      '2147483647',
      '2147483648',
      '+1',
      '-0',
      'NaN',
      'Infinity',
      'null',
      '%',
      '%ZZ',
      '%C0%AF',
      '%00',
      '%20',
      '..',
      '.',
      'search',
      '%2e%2e',
      '%E2%91%A0',
    ),
    anyText(30).map(encodeURIComponent),
  );
}

function pathArbitrary(knownIds: number[]) {
  const id = idArbitrary(knownIds);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('/people', '/people/search', '/keys', '/healthz', '/readyz') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('/metrics', '/openapi.json', '/docs', '/docs/assets/nope.js', '/'),
    },
    { weight: 3, arbitrary: id.map((value) => `/people/${value}`) },
    { weight: 2, arbitrary: id.map((value) => `/keys/${value}`) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.oneof(id, fc.constantFrom('people', 'keys', 'search', 'docs', 'healthz', '..', '')), {
          maxLength: 5,
        })
        .map((segments) => `/${segments.join('/')}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '/people/search/',
        '/PEOPLE',
        '//people',
        '/people//1',
        '/people/1/',
        '/people;x',
        '/people%2F1',
        '/%2e%2e/people',
        '/people/1/contacts',
        '/keys/1/2',
        '/healthz/',
        '/*',
        '/people/:id',
      ),
    },
  );
}

const queryKey = fc.oneof(
  fc.constantFrom(
    ...FILTER_KEYS,
    'limit',
    'after',
    '__proto__',
    'constructor',
    'toString',
    'email[]',
    'a[b]',
  ),
  printable(20),
);
const queryValue = fc.oneof(
  fc.constantFrom('true', 'false', 'yes', 'no', '1', '0', '-1', '1000', '1001', '99999999999', '', '%', '\\'),
  anyText(300),
);
const queryArbitrary = fc.option(
  fc.oneof(
    fc
      .array(fc.tuple(queryKey, queryValue), { maxLength: 5 })
      .map((pairs) =>
        pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&'),
      ),
    fc.constantFrom(
      '__proto__[x]=1',
      '__proto__=1',
      'constructor[prototype][x]=1',
      'a[b]=c',
      '%',
      '%ZZ=1',
      '&&',
      '=x',
      'limit=1&limit=2',
      'limit=0',
      'limit=1001',
      'after=-1',
      'has_chat=yes',
      'active=maybe',
      'last_name=%25_%5C',
      'last_name',
      `last_name=${'x'.repeat(3000)}`,
    ),
  ),
);

type Auth = { kind: 'none' | 'reader' | 'writer' | 'basic' } | { kind: 'raw'; value: string };

const authArbitrary: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 6,
    arbitrary: fc
      .constantFrom('reader' as const, 'writer' as const, 'basic' as const)
      .map((kind) => ({ kind })),
  },
  { weight: 1, arbitrary: headerValue(200).map((value) => ({ kind: 'raw' as const, value })) },
  {
    weight: 1,
    arbitrary: printable(100).map((value) => ({ kind: 'raw' as const, value: `Bearer ${value}` })),
  },
  {
    weight: 1,
    arbitrary: anyText(60).map((value) => ({
      kind: 'raw' as const,
      value: `Basic ${Buffer.from(value).toString('base64')}`,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        'Bearer',
        'Basic',
        'Bearer ',
        'Bearer  x',
        'bearer mdk_x',
        'BEARER mdk_x',
        'Basic ===',
        'Basic Og==',
        'Basic YTo=',
        'Basic OmI=',
        `Bearer mdk_${'A'.repeat(40)}`,
        `Bearer mdk_${'A'.repeat(4000)}`,
        'Digest username="x"',
        'Bearer a,b',
        'Bearer mdk_x, Basic Og==',
      )
      .map((value) => ({ kind: 'raw' as const, value })),
  },
);

const contentTypeArbitrary = fc.option(
  fc.oneof(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=UTF-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset=',
      'APPLICATION/JSON',
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=iso-8859-1',
      'application/x-www-form-urlencoded; charset=koi8-r',
      'text/plain',
      'text/html',
      'multipart/form-data; boundary=x',
      'application/merge-patch+json',
      'application/vnd.api+json',
      'application/octet-stream',
      '*/*',
      'application/',
      'json',
      ';',
    ),
    headerValue(60),
  ),
);

const interestingJsonObject = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...BODY_KEYS), printable(20)), fc.jsonValue({ maxDepth: 3 })), {
    maxLength: 6,
  })
  // Written as text so that keys such as "__proto__" are sent as they are.
  .map(
    (entries) =>
      `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`).join(',')}}`,
  );

const personBody = fc
  .record(
    {
      first_name: fc.oneof(anyText(120), fc.jsonValue({ maxDepth: 2 })),
      last_name: fc.oneof(anyText(120), fc.constant(null)),
      chat_id: fc.oneof(anyText(80), fc.constant(null), fc.constant('')),
    },
    { requiredKeys: [] },
  )
  .chain((person) =>
    fc.constantFrom(
      JSON.stringify({ person }),
      JSON.stringify(
        Object.fromEntries(Object.entries(person).map(([key, value]) => [`person[${key}]`, value])),
      ),
      new URLSearchParams(
        Object.entries(person).map(([key, value]): [string, string] => [
          `person[${key}]`,
          typeof value === 'string' ? value : JSON.stringify(value),
        ]),
      ).toString(),
    ),
  );

const bodyArbitrary: fc.Arbitrary<Buffer | null> = fc
  .oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 3, arbitrary: interestingJsonObject },
    { weight: 3, arbitrary: personBody },
    { weight: 2, arbitrary: anyText(300) },
    { weight: 1, arbitrary: fc.nat(6000).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`) },
    { weight: 1, arbitrary: fc.nat(3000).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 15_000, max: 20_000 })
        .map((length) => JSON.stringify({ last_name: 'x'.repeat(length) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.oneof(fc.constantFrom(...BODY_KEYS), printable(20)), anyText(40)), {
          maxLength: 120,
        })
        .map((pairs) => new URLSearchParams(pairs).toString()),
    },
  )
  .map((body) => (body === null ? null : typeof body === 'string' ? Buffer.from(body, 'utf8') : body));

const binaryBody = fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes));

const otherHeaders = fc.record(
  {
    'X-Request-Id': headerValue(250),
    'If-Match': fc.oneof(
      headerValue(60),
      fc.constantFrom('*', '"v1-20260101"', 'W/"v1-20260101"', '"v2-20260101", *'),
    ),
    'If-None-Match': fc.oneof(headerValue(60), fc.constantFrom('*', '"v1-20260101"')),
    Accept: fc.oneof(
      headerValue(60),
      fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml'),
    ),
    Cookie: headerValue(100),
    'Content-Encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip'),
    'X-Forwarded-For': headerValue(60),
    Origin: headerValue(60),
  },
  { requiredKeys: [] },
);

// ---- the properties ---------------------------------------------------------------------------

describe.each(testDatabases)('fuzzing the HTTP API on $name', (target) => {
  let t: TestApp;
  let server: http.Server;
  let port: number;
  let knownIds: number[];
  const credentials = { reader: '', writer: '', basic: '' };

  async function freshCredentials(): Promise<void> {
    const account = await t.createAccount({ permissions: ['read', 'write'] });
    credentials.writer = await t.issueToken(account.username, account.password);
    credentials.reader = await t.issueToken(account.username, account.password, { permissions: ['read'] });
    credentials.basic = `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`;
  }

  beforeAll(async () => {
    // The per-key rate limit would turn most of these requests into 429s; it has tests of its own.
    t = await createTestApp(target, { env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    knownIds = await t.addPeople([
      newPerson({ chatId: 'fuzz-chat-1' }),
      newPerson({ role: 'admin' }),
      newPerson({
        contacts: [{ kind: 'email', value: 'fuzz@example.org', label: null }],
        memberships: [{ club: 'Fuzz Club', kind: null, startDate: '2020-01-01', endDate: null }],
      }),
    ]);
    await freshCredentials();
    server = t.app.listen(0, '127.0.0.1');
    answerMalformedRequests(server);
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  function authorization(auth: Auth): string | undefined {
    if (auth.kind === 'none') return undefined;
    if (auth.kind === 'raw') return auth.value;
    return auth.kind === 'basic' ? credentials.basic : `Bearer ${credentials[auth.kind]}`;
  }

  async function exchange(sent: Sent): Promise<void> {
    const received = await send(port, sent);
    checkAnswer(sent, received);
    // A random DELETE may have revoked the keys in use: later runs get working ones again.
    if (sent.method === 'DELETE' && received.status === 200) await freshCredentials();
  }

  function request(
    method: string,
    path: string,
    query: string | null,
    auth: Auth,
    contentType: string | null,
    headers: Record<string, string>,
    body: Buffer | null,
    chunked: boolean,
  ): Sent {
    const all: Record<string, string> = { ...headers };
    const authValue = authorization(auth);
    if (authValue !== undefined) all.Authorization = authValue;
    if (contentType !== null) all['Content-Type'] = contentType;
    return { method, path: query === null ? path : `${path}?${query}`, headers: all, body, chunked };
  }

  it('any request to any route: no 5xx, the Error body on every 4xx, nothing internal', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        pathArbitrary(knownIds),
        queryArbitrary,
        authArbitrary,
        contentTypeArbitrary,
        otherHeaders,
        fc.oneof({ weight: 5, arbitrary: bodyArbitrary }, { weight: 1, arbitrary: binaryBody }),
        fc.boolean(),
        async (...args) => exchange(request(...args)),
      ),
      { numRuns: RUNS * 2 },
    );
  }, 240_000);

  it('bodies on the body routes with valid credentials get past authentication and still answer well', async () => {
    const route = fc.constantFrom(
      { method: 'GET', path: '/people', auth: 'reader' as const },
      { method: 'POST', path: '/people/search', auth: 'reader' as const },
      { method: 'PATCH', path: `/people/${knownIds[0]}`, auth: 'writer' as const },
      { method: 'PATCH', path: `/people/${knownIds[2]}`, auth: 'writer' as const },
      { method: 'POST', path: '/keys', auth: 'basic' as const },
    );
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.option(
          fc.constantFrom(
            'application/json',
            'application/x-www-form-urlencoded',
            'application/json; charset=utf-8',
          ),
          { freq: 8 },
        ),
        bodyArbitrary,
        fc.boolean(),
        async ({ method, path, auth }, contentType, body, chunked) =>
          exchange(request(method, path, null, { kind: auth }, contentType, {}, body, chunked)),
      ),
      { numRuns: RUNS * 2 },
    );
  }, 240_000);

  it('query strings on the people search with a valid key', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/people', '/people/search'), queryArbitrary, async (path, query) =>
        exchange(
          request(
            path === '/people' ? 'GET' : 'POST',
            path,
            query,
            { kind: 'reader' },
            null,
            {},
            null,
            false,
          ),
        ),
      ),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('ids in paths with valid keys', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'PATCH', 'DELETE', 'HEAD'),
        fc.constantFrom('people', 'keys'),
        idArbitrary(knownIds),
        async (method, resource, id) =>
          exchange(
            request(
              method,
              `/${resource}/${id}`,
              null,
              { kind: method === 'GET' || method === 'HEAD' ? 'reader' : 'writer' },
              method === 'PATCH' ? 'application/json' : null,
              {},
              method === 'PATCH' ? Buffer.from('{"person": {"last_name": "Fuzzed"}}') : null,
              false,
            ),
          ),
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
