import request from 'supertest';
import type { NewPerson } from '../../../src/application/ports/person-repository';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

type Filter = Record<string, string | boolean | number | null>;
type Form = 'query string' | 'GET body' | 'POST /people/search';
const FORMS: Form[] = ['query string', 'GET body', 'POST /people/search'];

const CURRENT = { club: 'Astronomy', kind: 'full', startDate: '2000-01-01', endDate: null };
const PAST = { club: 'Astronomy', kind: 'full', startDate: '2000-01-01', endDate: '2001-12-31' };
const FUTURE = { club: 'Astronomy', kind: null, startDate: '2999-01-01', endDate: null };

describe.each(testDatabases)('searching people on $name', (target) => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    token = await t.tokenWith(['read']);
  });
  afterAll(() => t.close());

  function search(form: Form, filter: Filter | undefined, page: Record<string, string> = {}) {
    const auth = `Bearer ${token}`;
    if (form === 'query string') {
      const query = {
        ...Object.fromEntries(Object.entries(filter ?? {}).map(([k, v]) => [k, String(v)])),
        ...page,
      };
      return request(t.app).get('/people').query(query).set('Authorization', auth);
    }
    const req =
      form === 'GET body'
        ? request(t.app).get('/people').query(page)
        : request(t.app).post('/people/search').query(page);
    req.set('Authorization', auth);
    return filter === undefined ? req : req.send(filter);
  }

  describe('matching', () => {
    const marker = uniqueName('M');
    const people: Record<string, NewPerson> = {
      ada: newPerson({
        firstName: 'Ada',
        lastName: `Lovelace${marker}`,
        chatId: `chat-${marker}-a`,
        plannerId: 'planner-a',
        contacts: [
          { kind: 'phone', value: '+44 1', label: null },
          { kind: 'email', value: `Ada.${marker}@Example.org`, label: 'home' },
        ],
        memberships: [CURRENT, PAST],
      }),
      bob: newPerson({
        firstName: 'Bo_b%',
        lastName: `O\\Brien${marker}`,
        contacts: [{ kind: 'email', value: `bob.${marker}@example.org`, label: null }],
        memberships: [PAST],
      }),
      adam: newPerson({
        firstName: 'Adam',
        lastName: `Lovelace${marker}`,
        plannerId: 'planner-d',
        memberships: [FUTURE],
      }),
      admin: newPerson({
        role: 'admin',
        firstName: 'Ada',
        lastName: `Lovelace${marker}`,
        chatId: `chat-${marker}-admin`,
        plannerId: 'planner-admin',
        contacts: [{ kind: 'email', value: `admin.${marker}@example.org`, label: null }],
        memberships: [CURRENT],
      }),
    };
    const m = marker.toUpperCase();

    const cases: [string, Filter, string[]][] = [
      ['last_name is a case-insensitive substring', { last_name: m }, ['ada', 'bob', 'adam']],
      [
        'last_name matches longer substrings',
        { last_name: `lovelace${marker}`.toUpperCase() },
        ['ada', 'adam'],
      ],
      ['first_name is a case-insensitive substring', { first_name: 'ADA', last_name: m }, ['ada', 'adam']],
      ['% matches itself', { first_name: '%', last_name: m }, ['bob']],
      ['_ matches itself', { first_name: 'o_b', last_name: m }, ['bob']],
      ['_ is not a wildcard', { first_name: 'A_a', last_name: m }, []],
      ['\\ matches itself', { last_name: `O\\Brien${marker}` }, ['bob']],
      ['email is exact and case-insensitive', { email: `ada.${marker}@EXAMPLE.ORG` }, ['ada']],
      ['email is not a substring match', { email: `ada.${marker}@example` }, []],
      ['chat_id is exact', { chat_id: `chat-${marker}-a` }, ['ada']],
      ['chat_id is case-sensitive', { chat_id: `CHAT-${marker}-A` }, []],
      ['active yes: a current membership', { active: 'yes', last_name: m }, ['ada']],
      [
        'active no: no current membership (past, future or none)',
        { active: 'no', last_name: m },
        ['bob', 'adam'],
      ],
      ['has_chat true', { has_chat: true, last_name: m }, ['ada']],
      ['has_chat false', { has_chat: false, last_name: m }, ['bob', 'adam']],
      ['has_planner true', { has_planner: true, last_name: m }, ['ada', 'adam']],
      ['has_planner false', { has_planner: false, last_name: m }, ['bob']],
      [
        'filters combine with AND',
        { first_name: 'ada', has_planner: true, active: 'no', last_name: m },
        ['adam'],
      ],
      ['an admin is not found even by its email', { email: `admin.${marker}@example.org` }, []],
      ['an admin is not found even by its chat_id', { chat_id: `chat-${marker}-admin` }, []],
    ];

    const ids: Record<string, number> = {};
    beforeAll(async () => {
      const names = Object.keys(people);
      const created = await t.addPeople(names.map((name) => people[name]));
      names.forEach((name, index) => {
        ids[name] = created[index];
      });
    });

    describe.each(FORMS)('with the filter in the %s', (form) => {
      it.each(cases)('%s', async (_title, filter, expected) => {
        const res = await search(form, filter);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.body.map((p: { id: number }) => p.id)).toEqual(
          expected.map((name) => ids[name]).sort((a, b) => a - b),
        );
      });
    });

    it('shows every field of a person, contacts by kind and memberships by start date', async () => {
      const res = await search('query string', { chat_id: `chat-${marker}-a` });
      expect(res.body).toEqual([
        {
          id: ids.ada,
          first_name: 'Ada',
          last_name: `Lovelace${marker}`,
          chat_id: `chat-${marker}-a`,
          planner_id: 'planner-a',
          member_number: null,
          contacts: [
            { id: expect.any(Number), kind: 'email', value: `Ada.${marker}@Example.org`, label: 'home' },
            { id: expect.any(Number), kind: 'phone', value: '+44 1', label: null },
          ],
          memberships: [
            {
              id: expect.any(Number),
              club: { id: expect.any(Number), name: 'Astronomy' },
              kind: 'full',
              start_date: '2000-01-01',
              end_date: null,
              current: true,
              status: 'current',
              grace_until: null,
            },
            {
              id: expect.any(Number),
              club: { id: expect.any(Number), name: 'Astronomy' },
              kind: 'full',
              start_date: '2000-01-01',
              end_date: '2001-12-31',
              current: false,
              status: 'ended',
              grace_until: null,
            },
          ],
          standing: 'current',
          good_standing_until: null,
        },
      ]);
    });

    it.each(FORMS)('without a filter, an empty body or {} returns everyone but admins (%s)', async (form) => {
      for (const filter of form === 'query string' ? [undefined] : [undefined, {}]) {
        const res = await search(form, filter);
        expect(res.status).toBe(200);
        const found = new Set(res.body.map((p: { id: number }) => p.id));
        expect([ids.ada, ids.bob, ids.adam].every((id) => found.has(id))).toBe(true);
        expect(found.has(ids.admin)).toBe(false);
        const all = res.body.map((p: { id: number }) => p.id);
        expect(all).toEqual([...all].sort((a: number, b: number) => a - b));
      }
    });
  });

  describe('validation', () => {
    const bodyCases: [string, unknown, string][] = [
      ['an unknown key', { nickname: 'x' }, 'unknown key "nickname"'],
      ['limit in the body', { limit: 5 }, 'limit goes in the query string'],
      ['a string filter that is not a string', { email: 5 }, 'email must be a string'],
      ['a string filter that is null', { first_name: null }, 'first_name must be a string'],
      [
        'a string longer than 255 characters',
        { last_name: 'x'.repeat(256) },
        'last_name must be at most 255',
      ],
      ['active other than yes or no', { active: 'maybe' }, 'active must be "yes" or "no"'],
      ['a boolean given as a string', { has_chat: 'true' }, 'has_chat must be true or false'],
      ['a boolean given as a number', { has_planner: 1 }, 'has_planner must be true or false'],
      ['an array instead of an object', [], 'must be a JSON object'],
    ];

    it.each(bodyCases)('a body with %s is refused with 400 naming it', async (_title, body, message) => {
      for (const form of ['GET body', 'POST /people/search'] as const) {
        const res = await search(form, undefined).send(body as object);
        expect(res.status).toBe(400);
        expect(res.body.errors.join(' ')).toContain(message);
      }
    });

    it('accepts a 255-character string filter', async () => {
      const res = await search('GET body', { last_name: 'x'.repeat(255) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });

    const queryCases: [string, string, string][] = [
      ['an unknown parameter', 'nickname=x', '"nickname"'],
      ['a boolean other than true or false', 'has_chat=yes', 'has_chat must be true or false'],
      ['a boolean given as 1', 'has_planner=1', 'has_planner must be true or false'],
      ['active other than yes or no', 'active=YES', 'active must be "yes" or "no"'],
      ['a repeated parameter', 'last_name=a&last_name=b', '"last_name" is given more than once'],
      ['a string longer than 255 characters', `email=${'x'.repeat(256)}`, 'email must be at most 255'],
      ['limit 0', 'limit=0', 'limit must be a whole number from 1 to 1000'],
      ['limit over 1000', 'limit=1001', 'limit must be a whole number from 1 to 1000'],
      ['limit not a number', 'limit=ten', 'limit must be'],
      ['limit with a fraction', 'limit=1.5', 'limit must be'],
      ['after negative', 'after=-1', 'after must be'],
      ['after not a number', 'after=x', 'after must be'],
    ];

    it.each(queryCases)('a query string with %s is refused with 400', async (_title, query, message) => {
      const res = await request(t.app).get(`/people?${query}`).set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(400);
      expect(res.body.errors.join(' ')).toContain(message);
    });

    it('a body and filter parameters together are refused', async () => {
      for (const form of ['GET body', 'POST /people/search'] as const) {
        const res = await search(form, { first_name: 'a' }, { last_name: 'b' });
        expect(res.status).toBe(400);
        expect(res.body.errors[0]).toContain('either in the body or in the query string');
      }
    });

    it('a JSON body that is not an object (a bare value) is refused', async () => {
      const res = await request(t.app)
        .get('/people')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send('"smith"');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: [expect.any(String)] });
    });

    it('a filter body that is not JSON is refused with 415', async () => {
      const res = await request(t.app)
        .post('/people/search')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'text/plain')
        .send('last_name=smith');
      expect(res.status).toBe(415);
    });
  });

  describe('paging', () => {
    const marker = uniqueName('P');
    let ids: number[];
    beforeAll(async () => {
      ids = await t.addPeople(Array.from({ length: 7 }, () => newPerson({ lastName: `Pager${marker}` })));
    });

    function nextLink(res: request.Response): string | null {
      const link = res.headers.link as string | undefined;
      if (link === undefined) return null;
      const match = /^<([^>]+)>; rel="next"$/.exec(link);
      if (match === null) throw new Error(`unexpected Link header ${link}`);
      return match[1];
    }

    it('follows Link rel="next" through every page to the end, keeping the filter', async () => {
      let url: string | null = `/people?last_name=${marker}&limit=3`;
      const pages: number[][] = [];
      while (url !== null) {
        const res: request.Response = await request(t.app).get(url).set('Authorization', `Bearer ${token}`);
        expect(res.status).toBe(200);
        pages.push(res.body.map((p: { id: number }) => p.id));
        url = nextLink(res);
        if (url !== null) {
          expect(url).toContain(`last_name=${marker}`);
          expect(url).toContain('limit=3');
        }
      }
      expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual(ids);
    });

    it('answers a page with its length, and a HEAD of it with the same headers and no body', async () => {
      const url = `/people?last_name=${marker}&limit=3`;
      const auth = `Bearer ${token}`;
      const get = await request(t.app).get(url).set('Authorization', auth);
      expect(get.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(get.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
      const head = await request(t.app).head(url).set('Authorization', auth);
      expect(head.status).toBe(200);
      expect(head.text ?? '').toBe('');
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      expect(head.headers.link).toBe(get.headers.link);
    });

    it('gives no Link when the page holds the last match exactly', async () => {
      const res = await request(t.app)
        .get(`/people?last_name=${marker}&limit=7`)
        .set('Authorization', `Bearer ${token}`);
      expect(res.body).toHaveLength(7);
      expect(res.headers.link).toBeUndefined();
    });

    it('starts after the given id', async () => {
      const res = await request(t.app)
        .get(`/people?last_name=${marker}&after=${ids[4]}`)
        .set('Authorization', `Bearer ${token}`);
      expect(res.body.map((p: { id: number }) => p.id)).toEqual(ids.slice(5));
    });

    it.each(['GET body', 'POST /people/search'] as const)(
      'pages a filter sent in the %s by the links alone: each a plain GET /people carrying the filter',
      async (form) => {
        const botMarker = uniqueName('B');
        const created = await t.addPeople(
          Array.from({ length: 9 }, (_, i) =>
            newPerson({ lastName: `Bot${botMarker}`, plannerId: i % 3 === 0 ? null : `planner-${i}` }),
          ),
        );
        const withPlanner = created.filter((_, i) => i % 3 !== 0);
        const filter = { last_name: botMarker, has_planner: true };

        const first = await search(form, filter, { limit: '2' });
        expect(first.status).toBe(200);
        const pages: number[][] = [first.body.map((p: { id: number }) => p.id)];
        let url = nextLink(first);
        while (url !== null) {
          const link: URL = new URL(url, 'http://x');
          expect(link.pathname).toBe('/people');
          expect(Object.fromEntries(link.searchParams)).toMatchObject({
            last_name: botMarker,
            has_planner: 'true',
            limit: '2',
          });
          // The link alone: no body, as a bot or a browser following it would send.
          const res: request.Response = await request(t.app).get(url).set('Authorization', `Bearer ${token}`);
          expect(res.status).toBe(200);
          pages.push(res.body.map((p: { id: number }) => p.id));
          url = nextLink(res);
        }
        expect(pages.map((page) => page.length)).toEqual([2, 2, 2]);
        expect(pages.flat()).toEqual(withPlanner);
      },
    );

    it('carries every kind of filter value into the link as the query string spells it', async () => {
      const [id] = await t.addPeople([
        newPerson({ firstName: 'Zoë & Co', lastName: 'a+b=c', chatId: uniqueName('chat') }),
        newPerson({ firstName: 'Zoë & Co', lastName: 'a+b=c', chatId: uniqueName('chat') }),
      ]);
      const filter = {
        first_name: 'Zoë & Co',
        last_name: 'a+b=c',
        has_chat: true,
        has_planner: false,
        active: 'no',
      };
      const first = await search('POST /people/search', filter, { limit: '1', after: String(id - 1) });
      expect(first.body.map((p: { id: number }) => p.id)).toEqual([id]);
      const link = new URL(nextLink(first) ?? '', 'http://x');
      expect(Object.fromEntries(link.searchParams)).toEqual({
        first_name: 'Zoë & Co',
        last_name: 'a+b=c',
        active: 'no',
        has_chat: 'true',
        has_planner: 'false',
        limit: '1',
        after: String(id),
      });
    });
  });

  describe('an unpaged search', () => {
    it('streams every match, more than one batch of the store, in id order as one JSON array', async () => {
      const marker = uniqueName('S');
      const ids = await t.addPeople(
        Array.from({ length: 2150 }, (_, i) =>
          newPerson({ lastName: `Streamed${marker}`, firstName: `N${i}`, memberships: [CURRENT] }),
        ),
      );
      const res = await request(t.app)
        .get(`/people?last_name=${marker}`)
        .set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toHaveLength(2150);
      expect(res.body.map((p: { id: number }) => p.id)).toEqual(ids);
      expect(res.body[2149].memberships[0].current).toBe(true);
    });

    it('answers a lookup whole, with its length, and a HEAD of it with the same headers', async () => {
      const marker = uniqueName('L');
      const [id] = await t.addPeople([newPerson({ lastName: `Looked${marker}`, chatId: `chat-${marker}` })]);
      const url = `/people?chat_id=chat-${marker}`;
      const auth = `Bearer ${token}`;
      const get = await request(t.app).get(url).set('Authorization', auth);
      expect(get.status).toBe(200);
      expect(get.body.map((p: { id: number }) => p.id)).toEqual([id]);
      expect(get.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
      const head = await request(t.app).head(url).set('Authorization', auth);
      expect(head.status).toBe(200);
      expect(head.text ?? '').toBe('');
      expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
    });

    it('answers every match of a lookup that finds more people than a lookup reads at once', async () => {
      const marker = uniqueName('F');
      const email = `family.${marker}@example.org`;
      const ids = await t.addPeople(
        Array.from({ length: 1010 }, (_, i) =>
          newPerson({
            lastName: `Family${marker}`,
            firstName: `N${i}`,
            contacts: [{ kind: 'email', value: i % 2 === 0 ? email : email.toUpperCase(), label: null }],
          }),
        ),
      );
      const res = await request(t.app)
        .get(`/people?email=${encodeURIComponent(email)}`)
        .set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
      expect(res.body.map((p: { id: number }) => p.id)).toEqual(ids);
    });

    it('streams an empty result as []', async () => {
      const res = await request(t.app)
        .get(`/people?last_name=${uniqueName('none')}`)
        .set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe('[]');
    });
  });
});
