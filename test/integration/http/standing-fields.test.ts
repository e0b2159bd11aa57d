import request from 'supertest';
import { buildOpenApiDocument } from '../../../src/http/openapi/openapi-document';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { StoppedClock } from '../../support/stopped-clock';
import { DocumentedAnswers } from '../docs/documented-answers';

const membership = (kind: string | null, startDate: string, endDate: string | null) => ({
  club: 'Astronomy',
  kind,
  startDate,
  endDate,
});

/**
 * Standing (SPEC §10) in every Person the API answers: the search, one person, a PATCH's answer,
 * the change feed's person and the subject-access export, under GRACE_DAYS=30 and 60 days for
 * students, on 15 June 2030 in the directory's time zone.
 */
describe.each(testDatabases)('standing in every person answered on $name', (target) => {
  let t: TestApp;
  let token: string;
  let manager: string;
  let graceId: number;
  let lapsedId: number;
  const marker = uniqueName('S');
  const clock = new StoppedClock('Europe/London', '2030-06-15T12:00:00Z');
  const docs = new DocumentedAnswers(buildOpenApiDocument());
  const bearer = (req: request.Test, key = token) => req.set('Authorization', `Bearer ${key}`);

  // Ended on 31 May: in grace for 30 days, until 30 June; renewed as a student from 1 July, the
  // day after, until 30 June 2031, with a student's 60 days of grace: until 29 August 2031.
  const expectedGrace = {
    memberships: [
      expect.objectContaining({ current: false, status: 'grace', grace_until: '2030-06-30' }),
      expect.objectContaining({ current: false, status: 'pending', grace_until: '2031-08-29' }),
    ],
    standing: 'grace',
    good_standing_until: '2031-08-29',
  };

  beforeAll(async () => {
    t = await createTestApp(target, {
      env: { DIRECTORY_TIMEZONE: 'Europe/London', GRACE_DAYS: '30', GRACE_DAYS_BY_KIND: 'Student=60' },
      overrides: { clock },
    });
    token = await t.tokenWith(['read', 'write']);
    manager = await t.tokenWith(['read', 'manage']);
    [graceId, , lapsedId] = await t.addPeople([
      newPerson({
        lastName: marker,
        memberships: [
          membership('full', '2029-06-01', '2030-05-31'),
          membership('STUDENT', '2030-07-01', '2031-06-30'),
        ],
      }),
      newPerson({ lastName: marker, memberships: [membership(null, '2020-01-01', null)] }),
      newPerson({ lastName: marker, memberships: [membership('full', '2020-01-01', '2030-05-15')] }),
      newPerson({ lastName: marker }),
    ]);
  });
  afterAll(() => t.close());

  it('GET /people gives each person standing and good_standing_until, each membership status and grace_until', async () => {
    const res = await bearer(request(t.app).get('/people').query({ last_name: marker }));
    expect(res.status).toBe(200);
    docs.expectDocumented(res, '/people', 'get');
    expect(res.body.map((p: { standing: string }) => p.standing)).toEqual([
      'grace',
      'current',
      'lapsed',
      'none',
    ]);
    expect(res.body[0]).toMatchObject(expectedGrace);
    expect(res.body[1]).toMatchObject({
      memberships: [{ status: 'current', grace_until: null }],
      good_standing_until: null,
    });
    expect(res.body[2]).toMatchObject({
      memberships: [{ status: 'ended', grace_until: '2030-06-14' }],
      good_standing_until: null,
    });
  });

  it('GET /people/:id and the PATCH answer show the same standing', async () => {
    const one = await bearer(request(t.app).get(`/people/${graceId}`));
    expect(one.status).toBe(200);
    docs.expectDocumented(one, '/people/{id}', 'get');
    expect(one.body).toMatchObject(expectedGrace);

    const patched = await bearer(request(t.app).patch(`/people/${graceId}`)).send({
      'person[first_name]': 'Grace',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ first_name: 'Grace', ...expectedGrace });
  });

  it("the change feed's person and the subject-access export show it too", async () => {
    const feed = await bearer(request(t.app).get('/changes').query({ limit: 1000 }));
    expect(feed.status).toBe(200);
    const ours = feed.body.changes.filter((c: { person_id: number }) => c.person_id === graceId);
    expect(ours.at(-1).person).toMatchObject(expectedGrace);

    const data = await bearer(request(t.app).get(`/people/${graceId}/data`), manager);
    expect(data.status).toBe(200);
    docs.expectDocumented(data, '/people/{id}/data', 'get');
    expect(data.body.person).toMatchObject({
      memberships: [
        expect.objectContaining({ status: 'grace', grace_until: '2030-06-30' }),
        expect.objectContaining({ status: 'pending', grace_until: '2031-08-29' }),
      ],
      standing: 'grace',
      good_standing_until: '2031-08-29',
    });
  });

  it('turns at midnight in the directory time zone: lapsed on the day after grace_until', async () => {
    clock.set('2030-06-14T22:59:59Z'); // 23:59:59 on 14 June in London (BST), its grace_until
    const last = await bearer(request(t.app).get(`/people/${lapsedId}`));
    clock.set('2030-06-14T23:00:00Z');
    const after = await bearer(request(t.app).get(`/people/${lapsedId}`));
    clock.set('2030-06-15T12:00:00Z');
    expect([last.body.standing, after.body.standing]).toEqual(['grace', 'lapsed']);
    expect([last.body.good_standing_until, after.body.good_standing_until]).toEqual(['2030-06-14', null]);
  });
});
