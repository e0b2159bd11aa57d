import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { snapshot } from '../sync/sync-support';
import { newRecord as record, recordRequests } from './person-record-support';

/** SPEC §9 "Editing over HTTP": a renewal, one membership more, written as the import would write the record. */
describe.each(testDatabases)('POST /people/:id/memberships on $name', (target) => {
  let t: TestApp;
  let managerKeyId: number;
  let manager: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    manager = await t.tokenWith(['read', 'write', 'manage']);
    [{ id: managerKeyId }] = await t.database.dataSource.query('SELECT max(id) AS id FROM api_keys');
    managerKeyId = Number(managerKeyId);
  });
  afterAll(() => t.close());

  const { add, renew, feedOf, auditOf } = recordRequests(() => ({ t, manager }));

  describe('POST /people/:id/memberships', () => {
    const renewal = { club: 'Northfield', kind: 'full', start_date: '2025-01-01', end_date: '2025-12-31' };

    it('records a renewal: 201 with the person, the other memberships kept with their ids, audited and told', async () => {
      const created = await add(record());
      const id = created.body.id as number;
      const [kept] = created.body.memberships;
      const res = await renew(id, renewal).set('If-Match', created.headers.etag);
      expect(res.status).toBe(201);
      expect(res.headers.etag).toMatch(/^"v2-\d{8}"$/);
      expect(res.body.memberships).toEqual([
        kept,
        {
          id: expect.any(Number),
          club: kept.club,
          kind: 'full',
          start_date: '2025-01-01',
          end_date: '2025-12-31',
          current: expect.any(Boolean),
          status: expect.any(String),
          grace_until: null,
        },
      ]);
      expect(res.body.contacts).toEqual(created.body.contacts);
      expect((await auditOf(id)).slice(1)).toEqual([
        { action: 'person.update', field: 'memberships', key: managerKeyId },
      ]);
      expect((await feedOf(id)).slice(1)).toEqual([
        { type: 'person.updated', fields: ['memberships'], by: managerKeyId },
      ]);
    });

    it('answers 409 to the same renewal again, and 412 to a stale If-Match, writing nothing', async () => {
      const created = await add(record());
      const id = created.body.id as number;
      expect((await renew(id, renewal)).status).toBe(201);
      const before = await snapshot(t.database);
      const again = await renew(id, renewal);
      expect(again.status).toBe(409);
      expect(again.body.errors).toEqual([
        `person ${id} already has this membership (the same club, kind and dates)`,
      ]);
      const stale = await renew(id, { ...renewal, start_date: '2026-01-01', end_date: null }).set(
        'If-Match',
        created.headers.etag,
      );
      expect(stale.status).toBe(412);
      expect(await snapshot(t.database)).toEqual(before);
    });

    it('refuses a bad membership with 400, each message naming its field, and unknown keys', async () => {
      const id = await t.addPerson();
      const res = await renew(id, { club: '', start_date: '2025-13-01', until: '2026-01-01' });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        'unknown field "until"',
        expect.stringMatching(/^club /),
        'start_date must be a calendar date written YYYY-MM-DD',
      ]);
      const order = await renew(id, { club: 'North', start_date: '2025-02-01', end_date: '2025-01-01' });
      expect(order.body.errors).toEqual(['end_date is before start_date']);
      const missing = await renew(id, { kind: 'full' });
      expect(missing.body.errors).toEqual(['club is required', 'start_date is required']);
      const array = await renew(id, [renewal]);
      expect(array.body.errors).toEqual(['the request body must be a JSON object']);
    });
  });
});
