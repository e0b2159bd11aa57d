import request from 'supertest';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

// SPEC §1: lengths count characters (code points), text is stored in NFC, and a NUL, a lone
// surrogate or a control character is refused with 400 naming the field, never silently changed.

const LONE = 'must not contain a lone surrogate (U+D800)';
const NOT_UTF8 = 'is not valid UTF-8 (a lone surrogate or a broken byte sequence)';

describe.each(testDatabases)('text rules over HTTP on $name', (target) => {
  let t: TestApp;
  let reader: string;
  let writer: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    reader = await t.tokenWith(['read']);
    writer = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  /** A raw JSON body, so that escapes such as \ud800 reach the server as the client wrote them. */
  const patchJson = (id: number, json: string) =>
    request(t.app)
      .patch(`/people/${id}`)
      .set('Authorization', `Bearer ${writer}`)
      .set('Content-Type', 'application/json')
      .send(json);

  const get = (id: number) => request(t.app).get(`/people/${id}`).set('Authorization', `Bearer ${reader}`);

  describe('PATCH /people/:id', () => {
    it.each([
      ['a lone surrogate', '"Ada\\ud800"', `first_name ${LONE}`],
      ['a NUL', '"Ada\\u0000"', 'first_name must not contain the NUL character (U+0000)'],
      [
        'an escape character',
        '"Ada\\u001b[31m"',
        'first_name must not contain control characters (found U+001B)',
      ],
      [
        'a C1 control character',
        '"Ada\\u0085"',
        'first_name must not contain control characters (found U+0085)',
      ],
      ['a tab', '"Ada\\tLovelace"', 'first_name must not contain control characters (found U+0009)'],
    ])('refuses a name with %s, naming the field, and changes nothing', async (_what, value, message) => {
      const id = await t.addPerson({ firstName: 'Ada' });
      for (const body of [`{"person[first_name]": ${value}}`, `{"person": {"first_name": ${value}}}`]) {
        const res = await patchJson(id, body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ errors: [message] });
      }
      expect((await get(id)).body).toMatchObject({ first_name: 'Ada' });
    });

    it('refuses a chat_id with a lone surrogate instead of storing U+FFFD', async () => {
      const id = await t.addPerson();
      const res = await patchJson(id, '{"person[chat_id]": "\\udc00abc"}');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: ['chat_id must not contain a lone surrogate (U+DC00)'] });
      expect((await get(id)).body.chat_id).toBeNull();
    });

    it('refuses form-encoded bytes that are not UTF-8 (a lone surrogate) instead of storing U+FFFD', async () => {
      const id = await t.addPerson({ firstName: 'Ada' });
      const res = await request(t.app)
        .patch(`/people/${id}`)
        .set('Authorization', `Bearer ${writer}`)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('person%5Bfirst_name%5D=Ada%ED%A0%80');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: [`"person[first_name]" ${NOT_UTF8}`] });
      expect((await get(id)).body.first_name).toBe('Ada');
    });

    it('refuses a JSON body whose bytes are not UTF-8', async () => {
      const id = await t.addPerson({ firstName: 'Ada' });
      const body = Buffer.concat([
        Buffer.from('{"person[first_name]": "Ad'),
        Buffer.from([0xe9]),
        Buffer.from('"}'),
      ]);
      const res = await request(t.app)
        .patch(`/people/${id}`)
        .set('Authorization', `Bearer ${writer}`)
        .set('Content-Type', 'application/json')
        // As it is: superagent would otherwise send a Buffer as JSON of its bytes.
        .serialize((raw: Buffer) => raw as unknown as string)
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: [`the request body ${NOT_UTF8}`] });
      expect((await get(id)).body.first_name).toBe('Ada');
    });

    it('accepts 100 characters outside the BMP as a name and refuses 101', async () => {
      const id = await t.addPerson();
      const ok = await patchJson(id, JSON.stringify({ 'person[first_name]': '𠮷'.repeat(100) }));
      expect(ok.status).toBe(200);
      expect(ok.body.first_name).toBe('𠮷'.repeat(100));
      const emoji = await patchJson(id, JSON.stringify({ 'person[last_name]': '😀'.repeat(51) }));
      expect(emoji.status).toBe(200);
      const over = await patchJson(id, JSON.stringify({ 'person[first_name]': '𠮷'.repeat(101) }));
      expect(over.status).toBe(400);
      expect(over.body).toEqual({ errors: ['first_name must be at most 100 characters'] });
    });

    it('stores a name in NFC', async () => {
      const id = await t.addPerson();
      const res = await patchJson(id, JSON.stringify({ 'person[first_name]': 'Zoe\u0308' }));
      expect(res.status).toBe(200);
      expect(res.body.first_name).toBe('Zo\u00eb');
      expect((await get(id)).body.first_name).toBe('Zo\u00eb');
    });

    it('stores a chat_id of spaces as null, and has_chat=false finds that person', async () => {
      const marker = uniqueName('Blank');
      const id = await t.addPerson({ lastName: marker, chatId: uniqueName('chat') });
      const res = await patchJson(id, JSON.stringify({ 'person[chat_id]': '   ' }));
      expect(res.status).toBe(200);
      expect(res.body.chat_id).toBeNull();
      const withoutChat = await request(t.app)
        .get('/people')
        .query({ last_name: marker, has_chat: 'false' })
        .set('Authorization', `Bearer ${reader}`);
      expect(withoutChat.body.map((p: { id: number }) => p.id)).toEqual([id]);
    });

    it('keeps a chat_id exactly as given and refuses one that NFC would change', async () => {
      const id = await t.addPerson();
      const chatId = `@zo\u00eb:${uniqueName('example')}`;
      const kept = await patchJson(id, JSON.stringify({ 'person[chat_id]': chatId }));
      expect(kept.body.chat_id).toBe(chatId);
      const decomposed = await patchJson(id, JSON.stringify({ 'person[chat_id]': chatId.normalize('NFD') }));
      expect(decomposed.status).toBe(400);
      expect(decomposed.body.errors[0]).toMatch(/^chat_id must be in Unicode normalization form C/);
    });
  });

  describe('search filters', () => {
    const search = (query: string) =>
      request(t.app).get(`/people?${query}`).set('Authorization', `Bearer ${reader}`);
    const searchBody = (json: string) =>
      request(t.app)
        .post('/people/search')
        .set('Authorization', `Bearer ${reader}`)
        .set('Content-Type', 'application/json')
        .send(json);

    it.each(['email', 'first_name', 'last_name', 'chat_id'])(
      'refuses a lone surrogate or a control character in %s, in a body and in the query string',
      async (field) => {
        expect((await searchBody(`{"${field}": "a\\ud800"}`)).body).toEqual({ errors: [`${field} ${LONE}`] });
        expect((await searchBody(`{"${field}": "a\\u0007"}`)).body).toEqual({
          errors: [`${field} must not contain control characters (found U+0007)`],
        });
        const query = await search(`${field}=a%ED%A0%80`);
        expect(query.status).toBe(400);
        expect(query.body).toEqual({ errors: [`query parameter "${field}" ${NOT_UTF8}`] });
        const control = await search(`${field}=a%09b`);
        expect(control.body).toEqual({
          errors: [`${field} must not contain control characters (found U+0009)`],
        });
      },
    );

    it('matches case-insensitively by Unicode case folding, in the query string and in a body', async () => {
      const tag = uniqueName('Fold');
      const sisyphus = await t.addPerson({ firstName: 'ΣΊΣΥΦΟΣ', lastName: tag });
      const strasse = await t.addPerson({
        firstName: 'Zoe\u0308',
        lastName: `Straße${tag}`,
        contacts: [{ kind: 'email', value: `ZOË.${tag}@EXAMPLE.ORG`, label: null }],
      });
      const idsOf = (res: request.Response) => res.body.map((p: { id: number }) => p.id);
      expect(idsOf(await search(`first_name=${encodeURIComponent('σίσυφος')}&last_name=${tag}`))).toEqual([
        sisyphus,
      ]);
      expect(
        idsOf(await searchBody(JSON.stringify({ last_name: `STRASSE${tag}`, first_name: 'ZOË' }))),
      ).toEqual([strasse]);
      expect(idsOf(await search(`email=${encodeURIComponent(`zoe\u0308.${tag}@example.org`)}`))).toEqual([
        strasse,
      ]);
    });

    it('still reads a % that starts no escape, as before', async () => {
      const res = await search('last_name=100%');
      expect(res.status).toBe(200);
    });

    it('counts a filter of 255 characters outside the BMP as 255, and refuses 256', async () => {
      const ok = await search(`last_name=${encodeURIComponent('𠮷'.repeat(255))}`);
      expect(ok.status).toBe(200);
      const over = await searchBody(JSON.stringify({ last_name: '𠮷'.repeat(256) }));
      expect(over.status).toBe(400);
      expect(over.body).toEqual({ errors: ['last_name must be at most 255 characters'] });
    });
  });

  describe('POST /keys', () => {
    const issue = async (json: string) => {
      const account = await t.createAccount();
      return request(t.app)
        .post('/keys')
        .set(
          'Authorization',
          `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`,
        )
        .set('Content-Type', 'application/json')
        .send(json);
    };

    it('accepts a name of 100 characters outside the BMP, stored in NFC, and refuses 101', async () => {
      const ok = await issue(JSON.stringify({ name: `${'😀'.repeat(99)}e\u0301` }));
      expect(ok.status).toBe(201);
      expect(ok.body.name).toBe(`${'😀'.repeat(99)}\u00e9`);
      const over = await issue(JSON.stringify({ name: '😀'.repeat(101) }));
      expect(over.status).toBe(400);
      expect(over.body).toEqual({ errors: ['name must be at most 100 characters'] });
    });

    it('refuses a name with a lone surrogate or a control character', async () => {
      expect((await issue('{"name": "bot\\ud800"}')).body).toEqual({ errors: [`name ${LONE}`] });
      expect((await issue('{"name": "bot\\nkey"}')).body).toEqual({
        errors: ['name must not contain control characters (found U+000A)'],
      });
    });
  });
});
