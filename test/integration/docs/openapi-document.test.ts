import request from 'supertest';
import { CHANGE_KEYS } from '../../../src/http/person-changes.dto';
import { FILTER_KEYS } from '../../../src/http/person-filter.dto';
import { ISSUE_KEY_BODY_KEYS } from '../../../src/http/keys-issue-body';
import { buildOpenApiDocument } from '../../../src/http/openapi/openapi-document';
import type { OpenApiDocument } from '../../../src/http/openapi/openapi-types';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { servedRoutes } from './served-routes';
import { openApiProblems } from './validate-openapi';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function documentedRoutes(document: OpenApiDocument): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => METHODS.includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument();

  it('is a valid OpenAPI 3.1 document (checked by @apidevtools/swagger-parser)', async () => {
    expect(await openApiProblems(document)).toBeNull();
    // The same check refuses a broken document, so the line above can fail.
    expect(await openApiProblems({ ...document, info: { title: 'no version' } })).toMatch(/version/);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
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

  it('takes the request bodies from the DTOs the routes validate with', () => {
    const { schemas } = document.components;
    const keysOf = (name: string) => Object.keys(schemas[name].properties as object).sort();
    expect(keysOf('PersonFilter')).toEqual([...FILTER_KEYS].sort());
    expect(keysOf('PersonChanges')).toEqual([...CHANGE_KEYS].sort());
    expect(keysOf('PersonUpdateFlat')).toEqual(CHANGE_KEYS.map((key) => `person[${key}]`).sort());
    expect(keysOf('IssueKeyRequest')).toEqual([...ISSUE_KEY_BODY_KEYS].sort());
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
      permissions: { items: { enum: ['read', 'write'] } },
    });
  });

  it('offers the filter of GET /people as query parameters, with the paging ones', () => {
    const names = (document.paths['/people'].get?.parameters ?? []).map((p) => ('name' in p ? p.name : ''));
    expect(names.sort()).toEqual([...FILTER_KEYS, 'limit', 'after'].sort());
    // Each carries the matching rule written on the DTO.
    const email = document.paths['/people'].get?.parameters?.find((p) => 'name' in p && p.name === 'email');
    expect(email).toMatchObject({ description: expect.stringMatching(/^Case-insensitive exact match/) });
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
