import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { MAX_ID } from '../../../src/http/ids';
import { ADA, EXAMPLE_TOKEN } from '../../../src/http/openapi/examples';
import { TokenCodec } from '../../../src/infrastructure/security/token-codec';
import { buildOpenApiDocument } from '../../../src/http/openapi/openapi-document';
import type {
  Header,
  OpenApiDocument,
  Operation,
  Reference,
  ResponseObject,
} from '../../../src/http/openapi/openapi-types';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { documentedOperations } from './documented-answers';
import { servedRoutes } from './served-routes';
import { openApiProblems } from './validate-openapi';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function operations(document: OpenApiDocument): [string, Operation][] {
  return documentedOperations(document).map(({ path, method, operation }): [string, Operation] => [
    `${method.toUpperCase()} ${path}`,
    operation,
  ]);
}

/** A local `#/...` reference followed, or the object itself. */
function follow<T>(document: OpenApiDocument, value: T | Reference): T {
  if (value === null || typeof value !== 'object' || !('$ref' in value)) return value as T;
  const parts = value.$ref.replace(/^#\//, '').split('/');
  return parts.reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], document) as T;
}

/** Every schema object of the document that declares `type: integer` (alone or with null), by where. */
function integerSchemas(node: unknown, where = '#'): [string, Record<string, unknown>][] {
  if (node === null || typeof node !== 'object') return [];
  const object = node as Record<string, unknown>;
  const own: [string, Record<string, unknown>][] =
    object.type === 'integer' || (Array.isArray(object.type) && object.type.includes('integer'))
      ? [[where, object]]
      : [];
  return [
    ...own,
    ...Object.entries(object).flatMap(([key, nested]) => integerSchemas(nested, `${where}/${key}`)),
  ];
}

function documentedRoutes(document: OpenApiDocument): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => METHODS.includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

// SPEC's names: the DTOs are the one list of them in the code, and must keep to these.
const FILTER_KEYS = [
  'email',
  'first_name',
  'last_name',
  'chat_id',
  'member_number',
  'active',
  'has_chat',
  'has_planner',
  'ending_before',
  'standing',
  'in_good_standing',
];
const CHANGE_KEYS = ['first_name', 'last_name', 'chat_id'];

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument();

  it('is a valid OpenAPI 3.1 document (checked by @apidevtools/swagger-parser)', async () => {
    expect(await openApiProblems(document)).toBeNull();
    // The same check refuses a broken document, so the line above can fail.
    expect(await openApiProblems({ ...document, info: { title: 'no version' } })).toMatch(/version/);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
  });

  it('declares its server: the origin that serves it, so that the paths and "Try it out" work anywhere', () => {
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('gives every operation a default answer with the Error body', () => {
    for (const [name, operation] of operations(document)) {
      const fallback = follow<ResponseObject>(document, operation.responses.default);
      expect([name, fallback.content?.['application/json'].schema]).toEqual([
        name,
        { $ref: '#/components/schemas/Error' },
      ]);
    }
  });

  it('lists what the guard of every operation behind a key or a password can answer: 401, 429 and 503', () => {
    const guarded = operations(document).filter(([, operation]) => operation.security.length > 0);
    expect(guarded.length).toBeGreaterThan(10);
    for (const [name, operation] of guarded) {
      expect([name, Object.keys(operation.responses)]).toEqual([
        name,
        expect.arrayContaining(['401', '429', '503']),
      ]);
    }
    for (const [name, operation] of operations(document).filter(([, op]) => op.security.length === 0)) {
      expect([name, Object.keys(operation.responses).filter((s) => s === '401' || s === '429')]).toEqual([
        name,
        [],
      ]);
    }
  });

  it('declares the RateLimit headers on every answer of a bearer operation: always on a success, possibly on a failure', () => {
    const rateLimitOf = (response: ResponseObject) =>
      ['RateLimit', 'RateLimit-Policy'].map((name) => {
        const header = response.headers?.[name];
        return header === undefined
          ? 'absent'
          : follow<Header>(document, header).required
            ? 'required'
            : 'optional';
      });
    const seen: string[] = [];
    for (const [name, operation] of operations(document)) {
      const bearer = operation.security.some((requirement) => 'bearer' in requirement);
      for (const [status, reference] of Object.entries(operation.responses)) {
        const expected = !bearer ? 'absent' : Number(status) < 400 ? 'required' : 'optional';
        const actual = rateLimitOf(follow<ResponseObject>(document, reference));
        expect([name, status, actual]).toEqual([name, status, [expected, expected]]);
        seen.push(expected);
      }
    }
    // The walk met all three cases, so it checked something.
    expect(new Set(seen)).toEqual(new Set(['absent', 'required', 'optional']));
    // What express-rate-limit sends with standardHeaders 'draft-8'.
    expect(document.components.headers.RateLimit.example).toMatch(
      new RegExp(String(document.components.headers.RateLimit.schema.pattern)),
    );
  });

  it("declares every integer as int32 but the feed's seq (a bigint), and ids from 1 to the largest PostgreSQL integer", () => {
    const integers = integerSchemas(document);
    expect(integers.length).toBeGreaterThan(10);
    expect(integers.filter(([, schema]) => schema.format !== 'int32').map(([where]) => where)).toEqual([
      '#/components/schemas/Change/properties/seq',
      '#/components/schemas/PersonDataChange/properties/seq',
      '#/components/schemas/WebhookChange/properties/seq',
    ]);
    expect(document.components.schemas.Change.properties).toMatchObject({
      seq: { format: 'int64', maximum: Number.MAX_SAFE_INTEGER },
    });
    const { schemas } = document.components;
    const idOf = (name: string) => (schemas[name].properties as Record<string, unknown>).id;
    for (const name of ['Person', 'Contact', 'Membership', 'Club', 'ApiKey']) {
      expect([name, idOf(name)]).toEqual([name, expect.objectContaining({ minimum: 1, maximum: MAX_ID })]);
    }
    const after = document.paths['/people'].get?.parameters?.find((p) => 'name' in p && p.name === 'after');
    expect(after).toMatchObject({
      schema: { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_ID },
    });
    expect(schemas.IssueKeyRequest.properties).toMatchObject({ expires_in_days: { format: 'int32' } });
  });

  it("shows the README's person as the example of a person", () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    const block = /A person:\s+```json\n([\s\S]*?)```/.exec(readme);
    expect(JSON.parse(block?.[1] ?? 'null')).toEqual(ADA);
    const person = document.paths['/people/{id}'].get?.responses['200'] as ResponseObject;
    expect(person.content?.['application/json'].example).toEqual(ADA);
  });

  it('shows a token of the real shape that no service would accept, so secret scanners stay quiet', () => {
    expect(EXAMPLE_TOKEN).toMatch(/^mdk_[0-9A-Za-z]{38}$/);
    expect(new TokenCodec().isWellFormed(EXAMPLE_TOKEN)).toBe(false);
  });

  it('declares the bearer and basic security schemes and the Error schema', () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes.basic).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(document.components.schemas.Error).toMatchObject({
      type: 'object',
      required: ['errors'],
      properties: { errors: { type: 'array', items: { type: 'string' } } },
    });
  });

  it('describes the webhooks: the change payload and the ping, each with the Standard Webhooks headers', () => {
    expect(Object.keys(document.webhooks)).toEqual(['change', 'webhook.ping']);
    const change = document.webhooks.change.post as Operation;
    expect(change.requestBody?.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/WebhookChange',
    });
    expect(document.components.schemas.WebhookChange).toMatchObject({
      required: ['type', 'seq', 'person_id', 'at', 'cursor'],
      additionalProperties: false,
    });
    expect(document.components.schemas.WebhookPing).toMatchObject({
      required: ['type', 'subscription_id', 'at'],
      properties: { type: { const: 'webhook.ping' } },
    });
    for (const [name, item] of Object.entries(document.webhooks)) {
      const headers = (item.post?.parameters ?? []).map((p) =>
        'in' in p ? `${p.in} ${p.name} ${p.required}` : '?',
      );
      expect([name, headers]).toEqual([
        name,
        ['header webhook-id true', 'header webhook-timestamp true', 'header webhook-signature true'],
      ]);
      expect([name, Object.keys(item.post?.responses ?? {}).sort()]).toEqual([
        name,
        ['2XX', '410', 'default'],
      ]);
    }
    expect(document.tags.map((tag) => tag.name)).toContain('Webhooks');
  });

  it('describes the change feed and the webhooks in its introduction', () => {
    const { description } = document.info;
    expect(description).toMatch(/GET \/changes\?after=/);
    expect(description).toMatch(/Changes-Cursor/);
    expect(description).toMatch(/webhooks add URL/);
    expect(description).toMatch(/webhook-signature/);
    expect(description).toMatch(/\{"type", "seq", "person_id", "at", "cursor"\}/);
  });

  it('tells to paste the token alone: "Bearer mdk_..." in the Authorize dialog would be sent as "Bearer Bearer mdk_..."', () => {
    const hints = [document.info.description, document.components.securitySchemes.bearer.description];
    for (const hint of hints) expect(hint).not.toMatch(/Bearer mdk_/);
    expect(document.components.securitySchemes.bearer.description).toMatch(/paste the token alone/);
  });

  it('proposes an id that names nobody for PATCH /people/{id}, and real ids only where nothing changes', () => {
    const idOf = (operation?: Operation) =>
      (operation?.parameters ?? []).find((p) => 'name' in p && p.name === 'id') as { example?: unknown };
    expect(idOf(document.paths['/people/{id}'].patch).example).toBe(MAX_ID);
    expect(idOf(document.paths['/people/{id}'].get).example).toBe(ADA.id);
  });

  it('takes the request bodies from the DTOs the routes validate with', () => {
    const { schemas } = document.components;
    const keysOf = (name: string) => Object.keys(schemas[name].properties as object).sort();
    expect(keysOf('PersonFilter')).toEqual([...FILTER_KEYS].sort());
    expect(keysOf('PersonChanges')).toEqual([...CHANGE_KEYS].sort());
    expect(keysOf('PersonUpdateFlat')).toEqual(CHANGE_KEYS.map((key) => `person[${key}]`).sort());
    expect(keysOf('IssueKeyRequest')).toEqual(['expires_in_days', 'name', 'permissions']);
    // What the decorators say, as the generator read them.
    expect(schemas.PersonFilter.properties).toMatchObject({
      last_name: { type: 'string', maxLength: 255 },
      active: { type: 'string', enum: ['yes', 'no'] },
      has_chat: { type: 'boolean' },
    });
    expect(schemas.PersonUpdateNested).toMatchObject({
      required: ['person'],
      properties: { person: { $ref: '#/components/schemas/PersonChanges' } },
    });
    expect(schemas.IssueKeyRequest.properties).toMatchObject({
      expires_in_days: { minimum: 1, maximum: 365 },
      permissions: { items: { enum: ['read', 'write', 'manage'] } },
    });
  });

  it('offers the filter of GET /people as query parameters, with the paging ones', () => {
    const names = (document.paths['/people'].get?.parameters ?? []).map((p) => ('name' in p ? p.name : ''));
    expect(names.sort()).toEqual([...FILTER_KEYS, 'limit', 'after'].sort());
    // Each carries the matching rule written on the DTO.
    const email = document.paths['/people'].get?.parameters?.find((p) => 'name' in p && p.name === 'email');
    expect(email).toMatchObject({ description: expect.stringMatching(/^Case-insensitive exact match/) });
    const endingBefore = document.paths['/people'].get?.parameters?.find(
      (p) => 'name' in p && p.name === 'ending_before',
    );
    expect(endingBefore).toMatchObject({
      schema: { type: 'string', format: 'date' },
      description: expect.stringMatching(/^Renewals/),
    });
    const standing = document.paths['/people'].get?.parameters?.find(
      (p) => 'name' in p && p.name === 'standing',
    );
    expect(standing).toMatchObject({
      schema: { type: 'string' },
      description: expect.stringMatching(/^People whose standing/),
    });
    const good = document.paths['/people'].get?.parameters?.find(
      (p) => 'name' in p && p.name === 'in_good_standing',
    );
    expect(good).toMatchObject({ schema: { type: 'boolean' } });
  });

  it('declares no request body on a GET or DELETE, which browsers and generated clients cannot send', () => {
    const withBody = Object.entries(document.paths).flatMap(([path, item]) =>
      (['get', 'delete'] as const)
        .filter((method) => item[method]?.requestBody !== undefined)
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(withBody).toEqual([]);
    // GET /people still takes a JSON body, and says so in words.
    expect(document.paths['/people'].get?.description).toMatch(/JSON body/);
    expect(document.paths['/people/search'].post?.requestBody?.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PersonFilter',
    });
  });

  it('documents the three body forms of PATCH /people/{id}', () => {
    const content = document.paths['/people/{id}'].patch?.requestBody?.content ?? {};
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(content['application/json'].schema).toEqual({
      oneOf: [
        { $ref: '#/components/schemas/PersonUpdateFlat' },
        { $ref: '#/components/schemas/PersonUpdateNested' },
      ],
    });
  });
});

describe.each(testDatabases)('the served document on $name', (target) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(target);
  });
  afterAll(() => t.close());

  it('is served at GET /openapi.json', async () => {
    const res = await request(t.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('answers 404, changing nobody, when PATCH /people/{id} is tried with its example as proposed', async () => {
    const document = buildOpenApiDocument();
    const patch = document.paths['/people/{id}'].patch as Operation;
    const id = (patch.parameters ?? []).find((p) => 'name' in p && p.name === 'id') as { example: number };
    const body = patch.requestBody?.content['application/json'].examples?.nested.value;
    const token = await t.tokenWith(['read', 'write']);
    const res = await request(t.app)
      .patch(`/people/${id.example}`)
      .set('Authorization', `Bearer ${token}`)
      .send(body as object);
    expect(res.status).toBe(404);
  });

  it('lists every route the app serves, with each method, and nothing it does not serve', () => {
    const served = servedRoutes(t.app).map((route) => `${route.method.toUpperCase()} ${route.path}`);
    // The walk itself must have found the routers, or the comparison would prove nothing.
    expect(served).toEqual(
      expect.arrayContaining([
        'GET /people',
        'PATCH /people/{id}',
        'POST /keys',
        'DELETE /keys/{id}',
        'GET /docs',
      ]),
    );
    expect(documentedRoutes(buildOpenApiDocument()).sort()).toEqual([...new Set(served)].sort());
  });
});
