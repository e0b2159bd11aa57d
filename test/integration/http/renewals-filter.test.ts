import request from 'supertest';
import type { NewMembership } from '../../../src/application/ports/person-repository';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { StoppedClock } from '../../support/stopped-clock';

type Form = 'query string' | 'GET body' | 'POST /people/search';
const FORMS: Form[] = ['query string', 'GET body', 'POST /people/search'];

const period = (startDate: string, endDate: string | null): NewMembership => ({
  club: 'Astronomy',
  kind: 'full',
  startDate,
  endDate,
});

/**
 * `ending_before` (SPEC §9): current today, and not current on the day after the date by the
 * memberships as recorded. The directory's clock is stopped on 2030-06-15 (Kiritimati, UTC+14,
 * where that date begins on 14 June in UTC) and moved where a case needs it.
 */
describe.each(testDatabases)('the renewals filter ending_before on $name', (target) => {
  let t: TestApp;
  let token: string;
  const clock = new StoppedClock('Pacific/Kiritimati', '2030-06-15T00:00:00Z');
  const marker = uniqueName('R');
  const ids: Record<string, number> = {};

  const people: Record<string, NewMembership[]> = {
    endsOnTheDate: [period('2030-01-01', '2030-06-30')],
    endsBefore: [period('2030-01-01', '2030-06-20')],
    endsToday: [period('2029-06-16', '2030-06-15')],
    endsTheDayAfter: [period('2030-01-01', '2030-07-01')],
    openEnded: [period('2030-01-01', null)],
    renewedTheDayAfter: [period('2029-07-01', '2030-06-30'), period('2030-07-01', '2031-06-30')],
    renewedAfterAGap: [period('2029-07-01', '2030-06-30'), period('2030-07-05', '2031-06-30')],
    overlappingRenewal: [period('2029-07-01', '2030-06-30'), period('2030-06-01', null)],
    otherClubGoesOn: [period('2029-07-01', '2030-06-30'), { ...period('2020-01-01', null), club: 'Optics' }],
    notYetCurrent: [period('2030-06-20', '2030-06-25')],
    alreadyEnded: [period('2029-01-01', '2030-06-14')],
    noMemberships: [],
  };

  beforeAll(async () => {
    t = await createTestApp(target, {
      env: { DIRECTORY_TIMEZONE: 'Pacific/Kiritimati' },
      overrides: { clock },
    });
    token = await t.tokenWith(['read']);
    const names = Object.keys(people);
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

  async function ending(form: Form, date: string): Promise<string[]> {
    const res = await search(form, { last_name: marker, ending_before: date });
    expect(res.status).toBe(200);
    return res.body.map((p: { first_name: string }) => p.first_name);
  }

  describe.each(FORMS)('with the filter in the %s', (form) => {
    it('lists who is current today and not the day after the date, a recorded renewal taking them off', async () => {
      clock.set('2030-06-15T00:00:00Z');
      expect(await ending(form, '2030-06-30')).toEqual([
        'endsOnTheDate',
        'endsBefore',
        'endsToday',
        'renewedAfterAGap',
      ]);
    });

    it('on the date of today, lists those whose last day is today', async () => {
      clock.set('2030-06-15T00:00:00Z');
      expect(await ending(form, '2030-06-15')).toEqual(['endsToday']);
    });

    it('follows the clock: the next day, who ended yesterday is no longer current', async () => {
      clock.set('2030-06-15T11:00:00Z'); // 2030-06-16 in Kiritimati
      expect(await ending(form, '2030-06-30')).toEqual(['endsOnTheDate', 'endsBefore', 'renewedAfterAGap']);
      clock.set('2030-07-02T00:00:00Z'); // in the gap, current nowhere: on no list
      expect(await ending(form, '2031-06-30')).toEqual(['renewedTheDayAfter']);
      clock.set('2030-07-05T00:00:00Z'); // the renewal after the gap has begun
      expect(await ending(form, '2031-06-30')).toEqual(['renewedTheDayAfter', 'renewedAfterAGap']);
    });

    it('combines with the other filters', async () => {
      clock.set('2030-06-15T00:00:00Z');
      const res = await search(form, { last_name: marker, first_name: 'ends', ending_before: '2030-06-30' });
      expect(res.body.map((p: { id: number }) => p.id)).toEqual([
        ids.endsOnTheDate,
        ids.endsBefore,
        ids.endsToday,
      ]);
    });
  });

  it('pages with the filter carried in the Link header, whichever form it came in', async () => {
    clock.set('2030-06-15T00:00:00Z');
    for (const form of FORMS) {
      const seen: number[] = [];
      let res = await search(form, { last_name: marker, ending_before: '2030-06-30' }, { limit: '3' });
      for (;;) {
        expect(res.status).toBe(200);
        seen.push(...res.body.map((p: { id: number }) => p.id));
        const link = /<([^>]+)>; rel="next"/.exec(res.headers.link ?? '')?.[1];
        if (link === undefined) break;
        expect(new URL(link, 'http://x').searchParams.get('ending_before')).toBe('2030-06-30');
        res = await request(t.app).get(link).set('Authorization', `Bearer ${token}`);
      }
      expect(seen).toEqual([ids.endsOnTheDate, ids.endsBefore, ids.endsToday, ids.renewedAfterAGap]);
    }
  });

  const badDates: [string, unknown][] = [
    ['a day that does not exist', '2030-02-30'],
    ['a month 13', '2030-13-01'],
    ['another form of date', '30/06/2030'],
    ['a date without leading zeros', '2030-6-1'],
    ['a timestamp', '2030-06-30T00:00:00Z'],
    ['an empty string', ''],
  ];

  it.each(badDates)('refuses %s with 400 naming ending_before, in every form', async (_title, value) => {
    for (const form of FORMS) {
      const res = await search(form, { ending_before: value });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        'ending_before must be a date written YYYY-MM-DD, such as 2026-06-30',
      ]);
    }
  });

  it('refuses a body value that is not a string', async () => {
    for (const value of [20300630, null, true]) {
      const res = await search('POST /people/search', { ending_before: value });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(['ending_before must be a string']);
    }
  });
});
