import request from 'supertest';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { snapshot } from '../sync/sync-support';
import { newRecord as record, recordRequests } from './person-record-support';

/** SPEC §9 "Editing over HTTP": one import record written with the import's own rules. */
describe.each(testDatabases)('POST /people and PUT /people/:id/record on $name', (target) => {
  let t: TestApp;
  let managerKeyId: number;
  let manager: string;
  let writer: string;
  beforeAll(async () => {
    t = await createTestApp(target);
    manager = await t.tokenWith(['read', 'write', 'manage']);
    [{ id: managerKeyId }] = await t.database.dataSource.query('SELECT max(id) AS id FROM api_keys');
    managerKeyId = Number(managerKeyId);
    writer = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  const { as, add, put, renew, feedOf, auditOf } = recordRequests(() => ({ t, manager }));

  describe('the order of checks', () => {
    it('answers 401 without a key before looking at the body or the path', async () => {
      for (const res of [
        await add('not json', null),
        await put('abc', { id: 'x' }, null),
        await renew(0, [], null),
      ]) {
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    });

    it('answers 401 naming manage to a write key, whatever it sends', async () => {
      const id = await t.addPerson();
      for (const res of [
        await add(record(), writer),
        await put(id, {}, writer),
        await renew(id, {}, writer),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body.errors).toEqual(['this key lacks the manage permission']);
      }
    });

    it('answers 400 for a bad record before 404 for nobody, and 404 before 412', async () => {
      const bad = await put(2_000_000_000, { first_name: '' });
      expect(bad.status).toBe(400);
      const nobody = await put(2_000_000_000, { first_name: 'A' }).set('If-Match', '"v1-20240101"');
      expect(nobody.status).toBe(404);
      expect(nobody.body.errors).toEqual(['id 2000000000 names no person in the directory']);
      const renewNobody = await renew(2_000_000_000, { club: 'North', start_date: '2025-01-01' }).set(
        'If-Match',
        '"v1-20240101"',
      );
      expect(renewNobody.status).toBe(404);
    });

    it('answers 404 for an admin and for someone erased, on both routes', async () => {
      const admin = await t.addPerson({ role: 'admin' });
      const erased = await t.addPerson();
      expect((await as(request(t.app).delete(`/people/${erased}`))).status).toBe(200);
      for (const id of [admin, erased]) {
        expect((await put(id, { first_name: 'A' })).status).toBe(404);
        expect((await renew(id, { club: 'North', start_date: '2025-01-01' })).status).toBe(404);
      }
    });

    it('answers 405 with Allow for another method', async () => {
      const id = await t.addPerson();
      const res = await as(request(t.app).patch(`/people/${id}/record`)).send({});
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('PUT, OPTIONS');
      const people = await as(request(t.app).put('/people')).send({});
      expect(people.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
      const memberships = await as(request(t.app).get(`/people/${id}/memberships`));
      expect(memberships.headers.allow).toBe('POST, OPTIONS');
    });
  });

  describe('POST /people', () => {
    it('adds the person the record says: 201 with the person, its ETag and Location, audited and told with the key', async () => {
      const chat = uniqueName('chat');
      const wanted = record({ chat_id: chat });
      const res = await add(wanted);
      expect(res.status).toBe(201);
      const id = res.body.id as number;
      expect(res.headers.location).toBe(`/people/${id}`);
      expect(res.headers.etag).toMatch(/^"v1-\d{8}"$/);
      expect(res.body).toMatchObject({
        first_name: 'Ada',
        last_name: wanted.last_name,
        chat_id: chat,
        member_number: wanted.member_number,
        contacts: [{ kind: 'email', value: wanted.contacts[0].value, label: 'home' }],
        memberships: [
          { club: { name: 'Northfield' }, kind: 'full', start_date: '2024-01-01', end_date: '2024-12-31' },
        ],
      });
      const read = await as(request(t.app).get(`/people/${id}`));
      expect(read.body).toEqual(res.body);
      expect(await auditOf(id)).toEqual([{ action: 'person.create', field: null, key: managerKeyId }]);
      expect(await feedOf(id)).toEqual([{ type: 'person.created', fields: null, by: managerKeyId }]);
    });

    it('refuses a record with an id with 400 naming id, writing nothing', async () => {
      const before = await snapshot(t.database);
      const res = await add({ ...record(), id: 5 });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(['id must be left out: the directory gives the person added their id']);
      expect(await snapshot(t.database)).toEqual(before);
    });

    it('refuses a bad record with 400, each message naming its field as the import does', async () => {
      const before = await snapshot(t.database);
      const res = await add({
        first_name: 'A',
        nickname: 'x',
        memberships: [{ club: 'North', start_date: '2024-02-01', end_date: '2024-01-01' }],
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        'unknown field "nickname"',
        'memberships[0].end_date is before start_date',
      ]);
      const noName = await add({ first_name: 'A' });
      expect(noName.status).toBe(400);
      expect(noName.body.errors).toEqual(['last_name is required']);
      const admin = await add({ ...record(), role: 'admin' });
      expect(admin.status).toBe(400);
      expect(admin.body.errors).toEqual([
        'role admin is not taken over HTTP; admins are made with the command line',
      ]);
      expect(await snapshot(t.database)).toEqual(before);
    });

    it('answers 409 for a member_number that names someone (nobody would be added), or a chat_id or number taken', async () => {
      const number = uniqueName('N');
      const chat = uniqueName('chat');
      const holder = await t.addPerson({ memberNumber: number, chatId: chat });
      const admin = await t.addPerson({ role: 'admin', memberNumber: uniqueName('A') });
      const [{ member_number: adminNumber }] = await t.database.dataSource.query(
        'SELECT member_number FROM people WHERE id = $1',
        [admin],
      );
      const before = await snapshot(t.database);

      const named = await add(record({ member_number: number }));
      expect(named.status).toBe(409);
      expect(named.body.errors).toEqual([
        `member_number "${number}" is already used by person ${holder}; a person added needs a number of their own`,
      ]);
      const chatTaken = await add(record({ chat_id: chat }));
      expect(chatTaken.status).toBe(409);
      expect(chatTaken.body.errors).toEqual([
        `chat_id "${chat}" is already used by person ${holder}, whom no record names`,
      ]);
      const adminsNumber = await add(record({ member_number: adminNumber }));
      expect(adminsNumber.status).toBe(409);
      expect(adminsNumber.body.errors).toEqual([
        `member_number "${adminNumber}" is already used by someone who is not a member`,
      ]);
      expect(await snapshot(t.database)).toEqual(before);
    });
  });

  describe('PUT /people/:id/record', () => {
    it('makes the person the record, by the import rules: left-out fields kept, unchanged children keep their ids', async () => {
      const chat = uniqueName('chat');
      const created = await add(record({ chat_id: chat }));
      const id = created.body.id as number;
      const [email] = created.body.contacts;
      const [kept] = created.body.memberships;

      const res = await put(id, {
        first_name: 'Augusta',
        contacts: [
          { kind: 'email', value: email.value, label: 'home' },
          { kind: 'phone', value: '+44 20 7946 0000', label: null },
        ],
        memberships: [
          { club: 'Northfield', kind: 'full', start_date: '2024-01-01', end_date: '2024-12-31' },
          { club: 'Northfield', kind: 'full', start_date: '2025-01-01', end_date: '2025-12-31' },
        ],
      }).set('If-Match', created.headers.etag);

      expect(res.status).toBe(200);
      expect(res.headers.etag).toMatch(/^"v2-\d{8}"$/);
      expect(res.body).toMatchObject({
        id,
        first_name: 'Augusta',
        last_name: created.body.last_name,
        chat_id: chat,
        member_number: created.body.member_number,
      });
      expect(res.body.contacts.find((c: { kind: string }) => c.kind === 'email').id).toBe(email.id);
      expect(res.body.contacts).toHaveLength(2);
      expect(res.body.memberships.map((m: { id: number }) => m.id)).toContain(kept.id);
      expect(res.body.memberships).toHaveLength(2);

      expect(await auditOf(id)).toEqual([
        { action: 'person.create', field: null, key: managerKeyId },
        { action: 'person.update', field: 'first_name', key: managerKeyId },
        { action: 'person.update', field: 'contacts', key: managerKeyId },
        { action: 'person.update', field: 'memberships', key: managerKeyId },
      ]);
      expect(await feedOf(id)).toEqual([
        { type: 'person.created', fields: null, by: managerKeyId },
        { type: 'person.updated', fields: ['first_name', 'contacts', 'memberships'], by: managerKeyId },
      ]);
    });

    it('with the same record again changes nothing: the same ETag, no audit entry, nothing in the feed', async () => {
      const wanted = record();
      const created = await add(wanted);
      const id = created.body.id as number;
      const before = await snapshot(t.database);
      const res = await put(id, { ...wanted, id, role: 'member' }).set('If-Match', created.headers.etag);
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(created.headers.etag);
      expect(res.body).toEqual(created.body);
      expect(await snapshot(t.database)).toEqual(before);
      expect(await feedOf(id)).toEqual([{ type: 'person.created', fields: null, by: managerKeyId }]);
    });

    it('answers 412 to a stale If-Match, writing nothing, and 200 to * or the current tag', async () => {
      const created = await add(record());
      const id = created.body.id as number;
      const changed = await put(id, { first_name: 'Second' });
      expect(changed.status).toBe(200);
      const before = await snapshot(t.database);
      const stale = await put(id, { first_name: 'Third' }).set('If-Match', created.headers.etag);
      expect(stale.status).toBe(412);
      expect(stale.body.errors).toEqual([
        `person ${id} has changed since the version you read; read it again`,
      ]);
      const weak = await put(id, { first_name: 'Third' }).set('If-Match', `W/${changed.headers.etag}`);
      expect(weak.status).toBe(412);
      expect(await snapshot(t.database)).toEqual(before);
      expect((await put(id, { first_name: 'Third' }).set('If-Match', '*')).status).toBe(200);
    });

    it('answers 412 rather than 409 when the If-Match is stale and the chat_id taken', async () => {
      const holder = await t.addPerson({ chatId: uniqueName('chat') });
      const [{ chat_id: chat }] = await t.database.dataSource.query(
        'SELECT chat_id FROM people WHERE id = $1',
        [holder],
      );
      const created = await add(record());
      const id = created.body.id as number;
      await put(id, { first_name: 'Moved' });
      const res = await put(id, { chat_id: chat }).set('If-Match', created.headers.etag);
      expect(res.status).toBe(412);
      const taken = await put(id, { chat_id: chat });
      expect(taken.status).toBe(409);
      expect(taken.body.errors).toEqual([
        `chat_id "${chat}" is already used by person ${holder}, whom no record names`,
      ]);
    });

    it('refuses an id in the body other than the path, and a bad record, with 400 naming the field', async () => {
      const id = await t.addPerson();
      const other = await put(id, { id: id + 1, first_name: 'A' });
      expect(other.status).toBe(400);
      expect(other.body.errors).toEqual([`id must be ${id}, the id of the person written, or left out`]);
      const bad = await put(id, { contacts: [{ kind: 'email', value: 'not an address' }], colour: 'red' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([
        'unknown field "colour"',
        'contacts[0].value is not an email address',
      ]);
      const path = await put('abc', { first_name: 'A' });
      expect(path.status).toBe(400);
      expect(path.body.errors).toEqual(['id must be a positive integer']);
    });

    it('moves a member_number to the person, and answers 409 for one another person holds', async () => {
      const other = uniqueName('N');
      const holder = await t.addPerson({ memberNumber: other });
      const id = await t.addPerson();
      const fresh = uniqueName('N');
      const res = await put(id, { member_number: fresh });
      expect(res.status).toBe(200);
      expect(res.body.member_number).toBe(fresh);
      expect(await feedOf(id)).toEqual([
        { type: 'person.updated', fields: ['member_number'], by: managerKeyId },
      ]);
      const taken = await put(id, { member_number: other });
      expect(taken.status).toBe(409);
      expect(taken.body.errors).toEqual([
        `member_number "${other}" is already used by person ${holder}, whom no record names`,
      ]);
    });
  });
});
