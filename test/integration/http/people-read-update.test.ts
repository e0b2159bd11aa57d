import request from 'supertest';
import type { AuditLog } from '../../../src/application/ports/audit-log';
import { TYPES } from '../../../src/application/ports/tokens';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

describe.each(testDatabases)('one person over HTTP on $name', (target) => {
  let t: TestApp;
  let reader: string;
  let writer: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    reader = await t.tokenWith(['read']);
    writer = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  const get = (path: string, token = reader) =>
    request(t.app).get(path).set('Authorization', `Bearer ${token}`);
  const patch = (path: string, token = writer) =>
    request(t.app).patch(path).set('Authorization', `Bearer ${token}`);

  describe('GET /people/:id', () => {
    it('answers the person with a strong ETag', async () => {
      const id = await t.addPerson({ firstName: 'Vera', lastName: 'Rubin', chatId: uniqueName('chat') });
      const res = await get(`/people/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id,
        first_name: 'Vera',
        last_name: 'Rubin',
        contacts: [],
        memberships: [],
      });
      expect(res.headers.etag).toMatch(/^"v1-\d{8}"$/);
    });

    it('answers 304 to If-None-Match with the current tag, and 200 to a stale one', async () => {
      const id = await t.addPerson();
      const first = await get(`/people/${id}`);
      const etag = first.headers.etag;
      const same = await get(`/people/${id}`).set('If-None-Match', etag);
      expect(same.status).toBe(304);
      expect(same.headers.etag).toBe(etag);
      expect(same.text).toBe('');
      const weak = await get(`/people/${id}`).set('If-None-Match', `"other", W/${etag}`);
      expect(weak.status).toBe(304);

      await patch(`/people/${id}`).send({ 'person[first_name]': 'Changed' });
      const stale = await get(`/people/${id}`).set('If-None-Match', etag);
      expect(stale.status).toBe(200);
      expect(stale.body.first_name).toBe('Changed');
      expect(stale.headers.etag).not.toBe(etag);
    });

    it('answers 404 for a missing person and for an admin', async () => {
      const admin = await t.addPerson({ role: 'admin' });
      for (const id of [admin, 2_000_000_000]) {
        const res = await get(`/people/${id}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ errors: [expect.any(String)] });
      }
    });

    it.each(['0', '-1', '1.5', '01', 'abc', '1e3', '2147483648', '99999999999999999999', '%20', '%E2%91%A0'])(
      'answers 400 for the id %s',
      async (id) => {
        const res = await get(`/people/${id}`);
        expect(res.status).toBe(400);
        expect(res.body.errors[0]).toContain('id must be a positive integer');
      },
    );
    it('answers 400 for an id that is not valid percent-encoding', async () => {
      const res = await get('/people/%zz');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: ['the path is not valid percent-encoded UTF-8'] });
    });
  });

  describe('PATCH /people/:id', () => {
    it('takes the interface document form, person[field] keys in a JSON object', async () => {
      const id = await t.addPerson({ firstName: 'Old', lastName: 'Name' });
      const chatId = uniqueName('chat');
      const res = await patch(`/people/${id}`).send({
        'person[first_name]': '  Henrietta ',
        'person[last_name]': 'Leavitt',
        'person[chat_id]': chatId,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, first_name: 'Henrietta', last_name: 'Leavitt', chat_id: chatId });
      expect(res.headers.etag).toMatch(/^"v2-\d{8}"$/);
      expect((await get(`/people/${id}`)).body.first_name).toBe('Henrietta');
    });

    it('takes the nested form', async () => {
      const id = await t.addPerson();
      const res = await patch(`/people/${id}`).send({ person: { last_name: 'Cannon' } });
      expect(res.status).toBe(200);
      expect(res.body.last_name).toBe('Cannon');
    });

    it('takes a form-encoded body with the same keys', async () => {
      const id = await t.addPerson();
      const res = await patch(`/people/${id}`)
        .type('form')
        .send('person%5Bfirst_name%5D=Williamina&person%5Blast_name%5D=Fleming');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ first_name: 'Williamina', last_name: 'Fleming' });
    });

    it.each([
      ['null', null],
      ['an empty string', ''],
    ])('clears chat_id given %s', async (_title, value) => {
      const id = await t.addPerson({ chatId: uniqueName('chat') });
      const res = await patch(`/people/${id}`).send({ 'person[chat_id]': value });
      expect(res.status).toBe(200);
      expect(res.body.chat_id).toBeNull();
    });

    it('answers 409 for a chat_id another person has', async () => {
      const taken = uniqueName('chat');
      await t.addPerson({ chatId: taken });
      const id = await t.addPerson();
      const res = await patch(`/people/${id}`).send({ person: { chat_id: taken } });
      expect(res.status).toBe(409);
      expect(res.body.errors[0]).toContain('chat_id');
    });

    it('answers 412 to a stale If-Match and 200 to the current one or *', async () => {
      const id = await t.addPerson();
      const original = (await get(`/people/${id}`)).headers.etag;
      const first = await patch(`/people/${id}`)
        .set('If-Match', original)
        .send({ person: { first_name: 'One' } });
      expect(first.status).toBe(200);

      const stale = await patch(`/people/${id}`)
        .set('If-Match', original)
        .send({ person: { first_name: 'Two' } });
      expect(stale.status).toBe(412);
      expect((await get(`/people/${id}`)).body.first_name).toBe('One');

      const listed = await patch(`/people/${id}`)
        .set('If-Match', `${original}, ${first.headers.etag}`)
        .send({ person: { first_name: 'Three' } });
      expect(listed.status).toBe(200);

      const any = await patch(`/people/${id}`)
        .set('If-Match', '*')
        .send({ person: { first_name: 'Four' } });
      expect(any.status).toBe(200);
      expect(any.body.first_name).toBe('Four');
    });

    it.each(['garbage', '"v1"', 'W/"v1-20260101"', '"v0-20260101"'])(
      'answers 412 to a malformed or weak If-Match %s',
      async (tag) => {
        const id = await t.addPerson();
        const res = await patch(`/people/${id}`)
          .set('If-Match', tag)
          .send({ person: { first_name: 'X' } });
        expect(res.status).toBe(412);
      },
    );

    it.each(['garbage', 'W/"v1-20260101"', '"v7-20260101"', '*'])(
      'answers 404, not 412, for a missing person or an admin whatever the If-Match (%s)',
      async (tag) => {
        const admin = await t.addPerson({ role: 'admin' });
        for (const id of [admin, 2_000_000_000]) {
          const res = await patch(`/people/${id}`)
            .set('If-Match', tag)
            .send({ person: { first_name: 'X' } });
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ errors: [`person ${id} not found`] });
        }
      },
    );

    it('writes who changed what to the audit log', async () => {
      const account = await t.createAccount({ permissions: ['write'] });
      const token = await t.issueToken(account.username, account.password);
      const id = await t.addPerson({ firstName: 'Before', lastName: 'Same' });
      const res = await patch(`/people/${id}`, token).send({
        person: { first_name: 'After', last_name: 'Same' },
      });
      expect(res.status).toBe(200);
      const entries = await t.container.get<AuditLog>(TYPES.AuditLog).list({ personId: id });
      expect(entries).toEqual([
        expect.objectContaining({
          actorAccountId: account.personId,
          actorKeyId: expect.any(Number),
          action: 'person.update',
          subjectType: 'person',
          subjectId: id,
          field: 'first_name',
          oldValue: 'Before',
          newValue: 'After',
        }),
      ]);
    });

    it('answers 404 for a missing person and for an admin, and changes no admin', async () => {
      const admin = await t.addPerson({ role: 'admin', firstName: 'Root' });
      for (const id of [admin, 2_000_000_000]) {
        const res = await patch(`/people/${id}`).send({ person: { first_name: 'Hacked' } });
        expect(res.status).toBe(404);
      }
      const [{ first_name }] = await t.database.dataSource.query(
        'SELECT first_name FROM people WHERE id = $1',
        [admin],
      );
      expect(first_name).toBe('Root');
    });

    it.each(['0', '1.5', '01', 'x'])('answers 400 for the id %s', async (id) => {
      const res = await patch(`/people/${id}`).send({ person: { first_name: 'X' } });
      expect(res.status).toBe(400);
    });

    const badBodies: [string, unknown, string][] = [
      ['no field at all', {}, 'at least one of first_name, last_name, chat_id'],
      ['an unknown flat key', { 'person[nickname]': 'x' }, 'unknown key "person[nickname]"'],
      ['an unknown top-level key', { first_name: 'x' }, 'unknown key "first_name"'],
      ['an unknown nested key', { person: { nickname: 'x' } }, 'unknown key "person[nickname]"'],
      ['a nested person that is not an object', { person: 'x' }, 'person must be an object'],
      ['both forms at once', { person: { first_name: 'a' }, 'person[last_name]': 'b' }, 'not both'],
      ['a name that is not a string', { 'person[first_name]': 5 }, 'person[first_name] must be a string'],
      ['a nested name that is null', { person: { last_name: null } }, 'person[last_name] must be a string'],
      [
        'a chat_id that is not a string',
        { 'person[chat_id]': 42 },
        'person[chat_id] must be a string or null',
      ],
      ['an empty name', { 'person[first_name]': '   ' }, 'first_name must not be empty'],
      [
        'a name over 100 characters',
        { 'person[last_name]': 'x'.repeat(101) },
        'last_name must be at most 100',
      ],
      ['a name with a control character', { 'person[first_name]': 'a\nb' }, 'control characters'],
      ['a chat_id over 64 characters', { 'person[chat_id]': 'c'.repeat(65) }, 'chat_id must be at most 64'],
      [
        'a prototype key',
        JSON.parse('{"__proto__": {"first_name": "x"}}'),
        'the key "__proto__" is not allowed',
      ],
      ['a constructor key', { person: { constructor: 'x' } }, 'the key "constructor" is not allowed'],
    ];

    it.each(badBodies)('answers 400 to a body with %s', async (_title, body, message) => {
      const id = await t.addPerson({ firstName: 'Kept' });
      const res = await patch(`/people/${id}`).send(body as object);
      expect(res.status).toBe(400);
      expect(res.body.errors.join(' | ')).toContain(message);
      expect((await get(`/people/${id}`)).body.first_name).toBe('Kept');
    });

    it('answers 400 to a JSON array body', async () => {
      const id = await t.addPerson();
      const res = await patch(`/people/${id}`).send([{ 'person[first_name]': 'x' }]);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toContain('must be a JSON object');
    });

    it('answers 415 to a body that is neither JSON nor a form', async () => {
      const id = await t.addPerson();
      const res = await patch(`/people/${id}`).set('Content-Type', 'text/plain').send('first_name=x');
      expect(res.status).toBe(415);
      expect(res.headers['accept-patch']).toContain('application/json');
    });
  });

  describe('permissions', () => {
    it('a read-only key cannot PATCH: 401 naming write, with a challenge', async () => {
      const id = await t.addPerson();
      const res = await patch(`/people/${id}`, reader).send({ person: { first_name: 'X' } });
      expect(res.status).toBe(401);
      expect(res.body.errors[0]).toContain('write');
      expect(res.headers['www-authenticate']).toContain('Bearer');
    });

    it('a write-only key cannot read: 401 naming read', async () => {
      const token = await t.tokenWith(['write']);
      for (const path of ['/people', `/people/${await t.addPerson()}`]) {
        const res = await get(path, token);
        expect(res.status).toBe(401);
        expect(res.body.errors[0]).toContain('read');
      }
    });
  });
});
