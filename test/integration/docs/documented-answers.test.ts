import request from 'supertest';
import type { ChangeFeed } from '../../../src/application/ports/change-feed';
import { TYPES } from '../../../src/application/ports/tokens';
import { buildOpenApiDocument } from '../../../src/http/openapi/openapi-document';
import type { Operation, Parameter } from '../../../src/http/openapi/openapi-types';
import { MAX_PAGE_LIMIT } from '../../../src/application/page-limit';
import { MAX_ID } from '../../../src/http/ids';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { DocumentedAnswers, documentedOperations } from './documented-answers';

const document = buildOpenApiDocument();

function exampleOf(path: string, method: 'patch' | 'post', name?: string): unknown {
  const media = document.paths[path][method]?.requestBody?.content['application/json'];
  return name === undefined ? media?.example : media?.examples?.[name].value;
}

describe.each(testDatabases)('answers as documented on $name', (target) => {
  let t: TestApp;
  let token: string;
  let docs: DocumentedAnswers;

  beforeAll(async () => {
    t = await createTestApp(target);
    token = await t.tokenWith(['read', 'write']);
    docs = new DocumentedAnswers(document);
  });
  afterAll(() => t.close());

  const bearer = (req: request.Test, key = token) => req.set('Authorization', `Bearer ${key}`);

  async function addMember(): Promise<number> {
    const [id] = await t.addPeople([
      newPerson({
        chatId: uniqueName('chat'),
        contacts: [
          { kind: 'email', value: `${uniqueName('m')}@example.org`, label: 'home' },
          { kind: 'address', value: '1 Observatory Road\nGreenwich', label: null },
        ],
        memberships: [
          { club: uniqueName('Club'), kind: 'full', startDate: '2020-01-01', endDate: null },
          { club: uniqueName('Club'), kind: null, startDate: '2019-01-01', endDate: '2019-12-31' },
        ],
      }),
    ]);
    return id;
  }

  describe('people', () => {
    it('GET /people answers documented people, with the Link header when paged', async () => {
      await addMember();
      await addMember();
      const all = await bearer(request(t.app).get('/people'));
      expect(all.body.length).toBeGreaterThanOrEqual(2);
      docs.expectDocumented(all, '/people', 'get');

      const page = await bearer(request(t.app).get('/people?limit=1&has_chat=true'));
      expect(page.headers.link).toMatch(/rel="next"/);
      docs.expectDocumented(page, '/people', 'get');
    });

    it('POST /people/search answers documented people', async () => {
      const res = await bearer(request(t.app).post('/people/search')).send({ active: 'yes' });
      expect(res.status).toBe(200);
      docs.expectDocumented(res, '/people/search', 'post');
    });

    it('GET /people/{id} answers a documented person, then 304 for its ETag', async () => {
      const id = await addMember();
      const res = await bearer(request(t.app).get(`/people/${id}`));
      expect(res.body.memberships).toHaveLength(2);
      docs.expectDocumented(res, '/people/{id}', 'get');
      const again = await bearer(request(t.app).get(`/people/${id}`)).set('If-None-Match', res.headers.etag);
      expect(again.status).toBe(304);
      docs.expectDocumented(again, '/people/{id}', 'get');
    });

    it('PATCH /people/{id} accepts both documented JSON examples and the form', async () => {
      const id = await addMember();
      for (const name of ['flat', 'nested']) {
        const body = structuredClone(exampleOf('/people/{id}', 'patch', name)) as Record<string, unknown>;
        // The example's chat_id must not collide with another test's person.
        if ('person[chat_id]' in body) body['person[chat_id]'] = uniqueName('c');
        const res = await bearer(request(t.app).patch(`/people/${id}`)).send(body);
        expect(res.status).toBe(200);
        docs.expectDocumented(res, '/people/{id}', 'patch');
      }
      const form = await bearer(request(t.app).patch(`/people/${id}`))
        .type('form')
        .send({ 'person[last_name]': 'Herschel' });
      expect(form.body.last_name).toBe('Herschel');
      docs.expectDocumented(form, '/people/{id}', 'patch');
    });

    it('PATCH /people/{id} failures are documented: 400, 404, 409, 412, 413, 415', async () => {
      const id = await addMember();
      const other = await bearer(request(t.app).get(`/people/${await addMember()}`));
      const patch = () => bearer(request(t.app).patch(`/people/${id}`));
      const answers = [
        await patch().send({}),
        await bearer(request(t.app).patch(`/people/${MAX_ID}`)).send({ 'person[first_name]': 'X' }),
        await patch().send({ 'person[chat_id]': other.body.chat_id }),
        await patch().set('If-Match', '"v999-20200101"').send({ 'person[first_name]': 'X' }),
        await patch().send({ 'person[first_name]': 'x'.repeat(17 * 1024) }),
        await patch().type('text/plain').send('first_name=X'),
      ];
      expect(answers.map((res) => res.status)).toEqual([400, 404, 409, 412, 413, 415]);
      for (const res of answers) docs.expectDocumented(res, '/people/{id}', 'patch');
      // The schema and the validator agree that an empty change is refused.
      expect(docs.validates('PersonUpdateFlat', {})).toBe(false);
    });

    it('search errors are documented: 400 for an unknown filter, 401 without a key', async () => {
      const bad = await bearer(request(t.app).get('/people?nickname=x'));
      expect(bad.status).toBe(400);
      docs.expectDocumented(bad, '/people', 'get');
      const anonymous = await request(t.app).get('/people');
      expect(anonymous.status).toBe(401);
      docs.expectDocumented(anonymous, '/people', 'get');
    });

    it('the documented bounds of limit, after and id are the ones enforced', async () => {
      const status = async (path: string) => (await bearer(request(t.app).get(path))).status;
      expect(await status(`/people?limit=${MAX_PAGE_LIMIT}`)).toBe(200);
      expect(await status(`/people?limit=${MAX_PAGE_LIMIT + 1}`)).toBe(400);
      expect(await status('/people?limit=0')).toBe(400);
      expect(await status(`/people?after=${MAX_ID}`)).toBe(200);
      expect(await status(`/people?after=${MAX_ID + 1}`)).toBe(400);
      expect(await status(`/people/${MAX_ID}`)).toBe(404);
      expect(await status(`/people/${MAX_ID + 1}`)).toBe(400);
      expect(await status('/people/0')).toBe(400);
    });
  });

  describe('changes', () => {
    it('GET /changes answers documented pages, and documented 400 and 410', async () => {
      const id = await addMember();
      const start = await bearer(request(t.app).get('/people?limit=1'));
      await bearer(request(t.app).patch(`/people/${id}`)).send({ 'person[first_name]': 'Changed' });

      const page = await bearer(request(t.app).get(`/changes?after=${start.headers['changes-cursor']}`));
      expect(page.status).toBe(200);
      expect(page.body.changes).toEqual([expect.objectContaining({ type: 'person.updated', person_id: id })]);
      docs.expectDocumented(page, '/changes', 'get');

      const bad = await bearer(request(t.app).get('/changes?after=nonsense'));
      expect(bad.status).toBe(400);
      docs.expectDocumented(bad, '/changes', 'get');

      await t.container.get<ChangeFeed>(TYPES.ChangeFeed).prune(new Date(Date.now() + 60_000));
      const gone = await bearer(request(t.app).get(`/changes?after=${start.headers['changes-cursor']}`));
      expect(gone.status).toBe(410);
      docs.expectDocumented(gone, '/changes', 'get');
    });
  });

  describe('keys', () => {
    it('POST /keys issues a documented key from the documented example body; a wrong password is a documented 401', async () => {
      const account = await t.createAccount();
      const res = await request(t.app)
        .post('/keys')
        .auth(account.username, account.password)
        .send(exampleOf('/keys', 'post') as object);
      expect(res.status).toBe(201);
      expect(docs.validates('IssueKeyRequest', exampleOf('/keys', 'post'))).toBe(true);
      docs.expectDocumented(res, '/keys', 'post');

      const wrong = await request(t.app).post('/keys').auth(account.username, 'not the password');
      expect(wrong.status).toBe(401);
      docs.expectDocumented(wrong, '/keys', 'post');
    });

    it('GET /keys, DELETE /keys/{id} and DELETE /keys answer documented keys', async () => {
      const account = await t.createAccount();
      const first = await t.issueToken(account.username, account.password);
      await t.issueToken(account.username, account.password, { name: 'second' });

      const list = await bearer(request(t.app).get('/keys'), first);
      expect(list.body).toHaveLength(2);
      docs.expectDocumented(list, '/keys', 'get');

      const second = list.body.find((key: { name: string | null }) => key.name === 'second');
      const revokeOther = await bearer(request(t.app).delete(`/keys/${second.id}`), first);
      expect(revokeOther.status).toBe(200);
      docs.expectDocumented(revokeOther, '/keys/{id}', 'delete');

      const revokeSelf = await bearer(request(t.app).delete('/keys'), first);
      expect(revokeSelf.status).toBe(200);
      docs.expectDocumented(revokeSelf, '/keys', 'delete');
    });
  });

  describe('every operation, called only as the document describes it', () => {
    // As a client made from the document calls it (Swagger UI's "Try it out", or a generated one):
    // with the credentials its security requirement names and no others, its path parameters and
    // its request body's example. An operation whose document lacks a requirement, a parameter or
    // a usable example fails here. (The /docs browser test tries one operation of each kind of
    // input in the page itself.)
    it('succeeds, and one that names credentials refuses a request without them with 401', async () => {
      const account = await t.createAccount({ permissions: ['read', 'write', 'manage'] });
      const key = await t.issueToken(account.username, account.password);
      await t.issueToken(account.username, account.password, { name: 'other' });
      const keys = await bearer(request(t.app).get('/keys'), key);
      // The documented ids are examples; these name a person and a key that exist.
      const ids: Record<string, number> = {
        '/people/{id}': await addMember(),
        '/people/{id}/data': await addMember(),
        '/people/{id}/record': await addMember(),
        '/people/{id}/memberships': await addMember(),
        '/keys/{id}': keys.body.find((listed: { name: string | null }) => listed.name === 'other').id,
      };
      const operations = documentedOperations(document);
      // The operation that revokes the key it is called with goes last.
      const revokesItsKey = (operation: Operation) => Number(operation.operationId === 'revokeCurrentKey');
      operations.sort((a, b) => revokesItsKey(a.operation) - revokesItsKey(b.operation));

      for (const { path, method, operation } of operations) {
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const parameter = operation.parameters?.find(
            (listed): listed is Parameter => 'in' in listed && listed.in === 'path' && listed.name === name,
          );
          expect(`${path}: ${name} ${parameter === undefined ? 'undocumented' : 'documented'}`).toBe(
            `${path}: ${name} documented`,
          );
          const value =
            ids[path] ?? (parameter?.schema.enum as unknown[] | undefined)?.[0] ?? parameter?.example;
          return encodeURIComponent(String(value));
        });
        const send = (withCredentials: boolean) => {
          let req = request(t.app)[method as 'get'](url);
          // Any one requirement is enough: the first.
          for (const scheme of Object.keys(withCredentials ? (operation.security[0] ?? {}) : {})) {
            if (scheme === 'bearer') req = req.set('Authorization', `Bearer ${key}`);
            else if (scheme === 'basic') req = req.auth(account.username, account.password);
            else throw new Error(`${method} ${path}: no credentials for the scheme ${scheme}`);
          }
          const body = operation.requestBody?.content['application/json'];
          const example = body?.example ?? Object.values(body?.examples ?? {})[0]?.value;
          return example === undefined ? req : req.send(example as object);
        };
        if (operation.security.length > 0) {
          const refused = await send(false);
          expect(`${method} ${path} without credentials: ${refused.status}`).toBe(
            `${method} ${path} without credentials: 401`,
          );
          docs.expectDocumented(refused, path, method);
        }
        const res = await send(true);
        const succeeded = res.status >= 200 && res.status < 300;
        expect(`${method} ${path}: ${res.status}`).toBe(
          `${method} ${path}: ${succeeded ? res.status : 'a success'}`,
        );
        docs.expectDocumented(res, path, method);
      }
    });
  });

  describe('service', () => {
    it('the probes, metrics, document and docs page answer as documented', async () => {
      const checks: [string, string][] = [
        ['/healthz', '/healthz'],
        ['/readyz', '/readyz'],
        ['/metrics', '/metrics'],
        ['/openapi.json', '/openapi.json'],
        ['/docs', '/docs'],
        ['/docs/assets/swagger-ui.css', '/docs/assets/{file}'],
        ['/docs/assets/docs-init.js', '/docs/assets/{file}'],
        ['/docs/assets/package.json', '/docs/assets/{file}'],
      ];
      for (const [url, path] of checks) {
        const res = await request(t.app).get(url);
        docs.expectDocumented(res, path, 'get');
      }
    });
  });

  it('an undocumented answer is caught, so the checks above can fail', async () => {
    const res = await bearer(request(t.app).get('/keys'));
    const forged = { ...res, body: [{ ...res.body[0], token_hash: 'leak' }] } as typeof res;
    expect(() => docs.expectDocumented(forged, '/keys', 'get')).toThrow(/additional properties/);
  });

  it('every answer of a bearer operation after authentication carries the documented RateLimit headers', async () => {
    const id = await addMember();
    const answers = [
      await bearer(request(t.app).get(`/people/${id}`)),
      await bearer(request(t.app).get('/people?limit=1')),
      await bearer(request(t.app).get(`/people/${MAX_ID}`)),
      await bearer(request(t.app).get('/keys')),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 200, 404, 200]);
    for (const res of answers) {
      expect(res.headers.ratelimit).toMatch(/^"1200-in-1min"; r=\d+; t=\d+$/);
      expect(res.headers['ratelimit-policy']).toMatch(/^"1200-in-1min"; q=1200; w=60; pk=/);
    }
    docs.expectDocumented(answers[0], '/people/{id}', 'get');
    docs.expectDocumented(answers[2], '/people/{id}', 'get');
    // A success without them, or with a value of another shape, is not the documented answer.
    const [person] = answers;
    const withHeaders = (headers: Record<string, string>) =>
      ({ ...person, body: person.body, headers }) as typeof person;
    const { ratelimit: _dropped, ...withoutRateLimit } = person.headers;
    expect(() => docs.expectDocumented(withHeaders(withoutRateLimit), '/people/{id}', 'get')).toThrow(
      /^GET \/people\/\{id\} 200: missing header RateLimit$/,
    );
    const draft6 = withHeaders({ ...person.headers, ratelimit: 'limit=1200, remaining=3' });
    expect(() => docs.expectDocumented(draft6, '/people/{id}', 'get')).toThrow(
      /^GET \/people\/\{id\} 200: header RateLimit: "limit=1200, remaining=3" must match pattern/,
    );
  });

  describe('the rate limit as documented', () => {
    let limited: TestApp;
    beforeAll(async () => {
      // A second configuration over the same database: the key is its own, the count this app's.
      limited = await createTestApp(target, { env: { RATE_LIMIT_PER_MINUTE: '2' }, database: t.database });
    });

    it('answers a documented 429 once a key has used its requests for the minute', async () => {
      const token = await limited.tokenWith(['read']);
      const answers = [];
      for (let i = 0; i < 3; i += 1) {
        answers.push(await request(limited.app).get('/keys').set('Authorization', `Bearer ${token}`));
      }
      expect(answers.map((res) => res.status)).toEqual([200, 200, 429]);
      for (const res of answers) docs.expectDocumented(res, '/keys', 'get');
      expect(answers[0].headers).toHaveProperty('ratelimit');
      expect(answers[0].headers).toHaveProperty('ratelimit-policy');
    });
  });
});

describe('the examples of the document', () => {
  it('each validates against the schema beside it', () => {
    const docs = new DocumentedAnswers(document);
    expect(docs.exampleProblems()).toEqual([]);
    // The same walk finds a broken one, so the line above can fail.
    const broken = structuredClone(document);
    const media = broken.paths['/people/{id}'].get?.responses['200'];
    (media as { content: Record<string, { example: unknown }> }).content['application/json'].example = {
      id: 'x',
    };
    expect(new DocumentedAnswers(broken).exampleProblems()).toEqual([
      expect.stringMatching(/^#\/paths\/\/people\/\{id\}\/get\/responses\/200\/content\/application\/json: /),
    ]);
  });
});
