import request from 'supertest';
import type { NewMembership } from '../../../src/application/ports/person-repository';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { StoppedClock } from '../../support/stopped-clock';

type Form = 'query string' | 'GET body' | 'POST /people/search';
const FORMS: Form[] = ['query string', 'GET body', 'POST /people/search'];

const period = (startDate: string, endDate: string | null, kind = 'full'): NewMembership => ({
  club: 'Astronomy',
  kind,
  startDate,
  endDate,
});

/**
 * The filters `standing` and `in_good_standing` (SPEC §10) in the three forms of a search, under
 * GRACE_DAYS=10 and 30 days for students, on 15 June 2030.
 */
describe.each(testDatabases)('the standing filters on $name', (target) => {
  let t: TestApp;
  let token: string;
  const clock = new StoppedClock('UTC', '2030-06-15T12:00:00Z');
  const marker = uniqueName('F');
  const ids: Record<string, number> = {};

  const people: Record<string, NewMembership[]> = {
    current: [period('2030-01-01', '2030-12-31')],
    inGrace: [period('2029-06-01', '2030-06-10')],
    studentInGrace: [period('2029-06-01', '2030-05-25', 'Student')],
    graceOver: [period('2029-06-01', '2030-06-04')],
    pending: [period('2030-07-01', null)],
    lapsedAndPending: [period('2020-01-01', '2020-12-31'), period('2031-01-01', null)],
    lapsed: [period('2020-01-01', '2020-12-31')],
    none: [],
  };
  const names = Object.keys(people);

  beforeAll(async () => {
    t = await createTestApp(target, {
      env: { GRACE_DAYS: '10', GRACE_DAYS_BY_KIND: 'student=30' },
      overrides: { clock },
    });
    token = await t.tokenWith(['read']);
    const added = await t.addPeople(
      names.map((name) => newPerson({ firstName: name, lastName: marker, memberships: people[name] })),
    );
    names.forEach((name, i) => {
      ids[name] = added[i];
    });
  });
  afterAll(() => t.close());

  function search(form: Form, filter: Record<string, unknown>, page: Record<string, string> = {}) {
    const auth = `Bearer ${token}`;
    if (form === 'query string') {
      const query = {
        ...Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, String(v)])),
        ...page,
      };
      return request(t.app).get('/people').query(query).set('Authorization', auth);
    }
    const req =
      form === 'GET body'
        ? request(t.app).get('/people').query(page)
        : request(t.app).post('/people/search').query(page);
    return req.set('Authorization', auth).send(filter);
  }

  async function found(form: Form, filter: Record<string, unknown>): Promise<string[]> {
    const res = await search(form, { last_name: marker, ...filter });
    expect(res.status).toBe(200);
    return res.body.map((p: { first_name: string }) => p.first_name);
  }

  describe.each(FORMS)('with the filter in the %s', (form) => {
    it('standing: one value', async () => {
      expect(await found(form, { standing: 'current' })).toEqual(['current']);
      expect(await found(form, { standing: 'grace' })).toEqual(['inGrace', 'studentInGrace']);
      expect(await found(form, { standing: 'pending' })).toEqual(['pending', 'lapsedAndPending']);
      expect(await found(form, { standing: 'lapsed' })).toEqual(['graceOver', 'lapsed']);
      expect(await found(form, { standing: 'none' })).toEqual(['none']);
    });

    it('standing: a comma-separated list, spaces allowed', async () => {
      expect(await found(form, { standing: 'current,grace' })).toEqual([
        'current',
        'inGrace',
        'studentInGrace',
      ]);
      expect(await found(form, { standing: 'none, lapsed' })).toEqual(['graceOver', 'lapsed', 'none']);
    });

    it('in_good_standing: current or grace, and its opposite', async () => {
      expect(await found(form, { in_good_standing: true })).toEqual(['current', 'inGrace', 'studentInGrace']);
      expect(await found(form, { in_good_standing: false })).toEqual([
        'graceOver',
        'pending',
        'lapsedAndPending',
        'lapsed',
        'none',
      ]);
    });

    it('combines with active, which keeps speaking of the end date', async () => {
      expect(await found(form, { in_good_standing: true, active: 'no' })).toEqual([
        'inGrace',
        'studentInGrace',
      ]);
    });
  });

  it('follows the clock: the day after grace_until, lapsed', async () => {
    clock.set('2030-06-21T00:00:00Z'); // inGrace's grace_until was 20 June
    try {
      expect(await found('query string', { standing: 'grace' })).toEqual(['studentInGrace']);
      expect(await found('query string', { standing: 'lapsed' })).toEqual(['inGrace', 'graceOver', 'lapsed']);
    } finally {
      clock.set('2030-06-15T12:00:00Z');
    }
  });

  it('pages with the filter carried in the Link header, whichever form it came in', async () => {
    for (const form of FORMS) {
      const seen: number[] = [];
      let res = await search(
        form,
        { last_name: marker, standing: 'grace,pending', in_good_standing: false },
        { limit: '1' },
      );
      for (;;) {
        expect(res.status).toBe(200);
        seen.push(...res.body.map((p: { id: number }) => p.id));
        const link = /<([^>]+)>; rel="next"/.exec(res.headers.link ?? '')?.[1];
        if (link === undefined) break;
        const params = new URL(link, 'http://x').searchParams;
        expect([params.get('standing'), params.get('in_good_standing')]).toEqual(['grace,pending', 'false']);
        res = await request(t.app).get(link).set('Authorization', `Bearer ${token}`);
      }
      expect(seen).toEqual([ids.pending, ids.lapsedAndPending]);
    }
  });

  const STANDING_MESSAGE =
    'standing must be one of current, grace, pending, lapsed, none, or several of them separated by commas';

  it.each([
    ['no standing', 'gold'],
    ['a case the API does not use', 'Current'],
    ['an empty string', ''],
    ['an empty item', 'current,,grace'],
  ])('refuses %s with 400 naming standing, in every form', async (_title, value) => {
    for (const form of FORMS) {
      const res = await search(form, { standing: value });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([STANDING_MESSAGE]);
    }
  });

  it('refuses a body value of the wrong type, naming the field', async () => {
    for (const value of [['current'], 1, null]) {
      const res = await search('POST /people/search', { standing: value });
      expect([res.status, res.body.errors]).toEqual([400, ['standing must be a string']]);
    }
    for (const value of ['true', 1, null]) {
      const res = await search('POST /people/search', { in_good_standing: value });
      expect([res.status, res.body.errors]).toEqual([400, ['in_good_standing must be true or false']]);
    }
    const query = await search('query string', { in_good_standing: 'yes' });
    expect([query.status, query.body.errors]).toEqual([400, ['in_good_standing must be true or false']]);
  });
});
