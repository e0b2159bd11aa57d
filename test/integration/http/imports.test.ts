import request from 'supertest';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { memoryLogger } from '../../support/memory-logger';
import { snapshot } from '../sync/sync-support';

/** SPEC §9, IMPORT-API.md: POST /imports and GET /export, the secretary's work over HTTP. */
describe.each(testDatabases)('POST /imports and GET /export on $name', (target) => {
  let t: TestApp;
  let manager: string;
  let managerKeyId: number;
  let reader: string;
  const log = memoryLogger();

  beforeAll(async () => {
    t = await createTestApp(target, { env: { LOG_LEVEL: 'trace' }, overrides: { logger: log.logger } });
    manager = await t.tokenWith(['read', 'manage']);
    [{ id: managerKeyId }] = await t.database.dataSource.query('SELECT max(id) AS id FROM api_keys');
    reader = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  const post = (query = '', key: string | null = manager) => {
    const req = request(t.app).post(`/imports${query}`);
    return key === null ? req : req.set('Authorization', `Bearer ${key}`);
  };

  describe('the order of checks', () => {
    it('answers 401 without a key before looking at the body, its type or its size under the limit', async () => {
      for (const req of [
        post('', null).send([{ first_name: 'A', last_name: 'B' }]),
        post('?dry_run=maybe', null).set('Content-Type', 'text/plain').send('hello'),
        post('', null).set('Content-Type', 'application/json').send('[not json'),
      ]) {
        const res = await req;
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
      expect((await request(t.app).get('/export?format=xml')).status).toBe(401);
    });

    it('answers 401 naming manage to a key without it, whatever it sends', async () => {
      const res = await post('?dry_run=maybe', reader).set('Content-Type', 'text/plain').send('hello');
      expect(res.status).toBe(401);
      expect(res.body.errors).toEqual(['this key lacks the manage permission']);
      const exported = await request(t.app).get('/export').set('Authorization', `Bearer ${reader}`);
      expect(exported.status).toBe(401);
      expect(exported.body.errors).toEqual(['this key lacks the manage permission']);
    });

    it('answers 415 for another media type or charset, and 400 for a bad flag', async () => {
      const plain = await post().set('Content-Type', 'text/plain').send('first_name,last_name\nA,B\n');
      expect(plain.status).toBe(415);
      const latin1 = await post().set('Content-Type', 'text/csv; charset=iso-8859-1').send('first_name\n');
      expect(latin1.status).toBe(415);
      const flag = await post('?dry_run=yes').send([]);
      expect(flag.status).toBe(400);
      expect(flag.body.errors).toEqual(['dry_run must be true or false']);
      const unknown = await post('?force=true').send([]);
      expect(unknown.body.errors[0]).toMatch(/^unknown query parameter "force"/);
    });

    it('takes a body over 16 KiB on this route, and answers 413 past 10 MiB (other routes keep 16 KiB)', async () => {
      const many = Array.from({ length: 400 }, (_, i) => ({
        first_name: `Bulk${i}`,
        last_name: uniqueName('L'),
      }));
      const big = await post('?dry_run=true').send(many);
      expect(big.status).toBe(200);
      expect(big.body.summary.added).toBe(400);

      const tooBig = await post()
        .set('Content-Type', 'application/json')
        .send(`[${' '.repeat(10 * 1024 * 1024)}]`);
      expect(tooBig.status).toBe(413);
      expect(tooBig.body.errors).toEqual(['the request body is larger than 10 MiB']);
      const search = await request(t.app)
        .post('/people/search')
        .set('Authorization', `Bearer ${reader}`)
        .send({ first_name: 'x'.repeat(20 * 1024) });
      expect(search.status).toBe(413);
    });
  });

  it('with dry_run=true answers the summary and every change, and writes nothing', async () => {
    const number = uniqueName('N');
    await post().send([{ member_number: number, first_name: 'Grace', last_name: 'Murray' }]);
    const [{ id }] = await t.database.dataSource.query('SELECT id FROM people WHERE member_number = $1', [
      number,
    ]);
    const before = await snapshot(t.database);

    const res = await post('?dry_run=true')
      .set('Content-Type', 'text/csv; charset=utf-8')
      .send(`member_number,first_name,last_name\r\n${number},Grace,Hopper\r\n,Ada,${uniqueName('L')}\r\n`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dry_run: true,
      summary: { added: 1, updated: 1, unchanged: 0, erased: 0, kept: 0 },
      changes: [
        {
          where: 'row 2',
          action: 'update',
          person_id: id,
          first_name: 'Grace',
          last_name: 'Hopper',
          changes: [{ field: 'last_name', old: 'Murray', new: 'Hopper' }],
        },
        {
          where: 'row 3',
          action: 'add',
          person_id: null,
          first_name: 'Ada',
          last_name: expect.any(String),
          changes: [],
        },
      ],
      possible_duplicates: [],
    });
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('applies an import all or nothing, audited with the key, listing possible duplicates', async () => {
    const email = `${uniqueName('dup')}@example.org`;
    await post().send([
      { first_name: 'Old', last_name: 'Member', contacts: [{ kind: 'email', value: email }] },
    ]);
    const [{ id: old }] = await t.database.dataSource.query(
      "SELECT person_id AS id FROM contacts WHERE kind = 'email' AND value = $1",
      [email],
    );

    const res = await post().send([
      { first_name: 'New', last_name: 'Member', contacts: [{ kind: 'email', value: email.toUpperCase() }] },
    ]);

    expect(res.status).toBe(200);
    expect(res.body.dry_run).toBe(false);
    expect(res.body.summary).toEqual({ added: 1, updated: 0, unchanged: 0, erased: 0, kept: 0 });
    expect(res.body.possible_duplicates).toEqual([
      { where: 'record 0', person_id: old, first_name: 'Old', last_name: 'Member', reason: 'same email' },
    ]);
    const [added] = await t.database.dataSource.query(
      "SELECT max(id) AS id FROM people WHERE first_name = 'New' AND last_name = 'Member'",
    );
    const audit = await t.database.dataSource.query(
      'SELECT action, actor_key_id FROM audit_entries WHERE subject_type = $1 AND subject_id = $2',
      ['person', added.id],
    );
    expect(audit).toEqual([{ action: 'person.create', actor_key_id: managerKeyId }]);
    const changes = await t.database.dataSource.query(
      'SELECT type, by_key_id FROM changes WHERE person_id = $1',
      [added.id],
    );
    expect(changes.map((c: { by_key_id: unknown }) => Number(c.by_key_id))).toEqual([managerKeyId]);
  });

  it('refuses a bad file with 400, each message naming its row and column, writing nothing', async () => {
    const holder = await t.createAccount({ role: 'admin' });
    await post('?dry_run=true').send([]);
    const before = await snapshot(t.database);
    const res = await post()
      .set('Content-Type', 'text/csv')
      .send(
        'first_name,last_name,club,kind,start_date,end_date\nA,B,North,,2024-13-01,\nC,,North,,2024-01-01,\n',
      );
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      'row 2, column start_date: must be a calendar date written YYYY-MM-DD',
      'row 3, column last_name: must not be empty',
    ]);
    const admin = await post().send([{ first_name: 'A', last_name: 'B', role: 'admin' }]);
    expect(admin.status).toBe(400);
    expect(admin.body.errors).toEqual([
      'record 0: role admin is not taken over HTTP; admins are made with the command line',
    ]);
    // Admins are nobody here, as everywhere in the API.
    const named = await post().send([{ id: holder.personId }]);
    expect(named.body.errors).toEqual([`record 0: id ${holder.personId} names no person in the directory`]);
    const json = await post().set('Content-Type', 'application/json').send('{"first_name": "A"}');
    expect(json.status).toBe(400);
    expect(json.body.errors).toEqual(['the file must hold a JSON array of people']);
    const broken = await post().set('Content-Type', 'application/json').send('[{"first_name": }]');
    expect(broken.body.errors[0]).toMatch(/^the request body is not valid JSON: /);
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('refuses an id larger than an id can be with 400 naming the record or row and the field, dry run or not', async () => {
    await post('?dry_run=true').send([]);
    const before = await snapshot(t.database);
    for (const query of ['', '?dry_run=true']) {
      for (const id of [2147483648, 999999999999999]) {
        const json = await post(query).send([{ id, last_name: 'Large' }]);
        expect(json.status).toBe(400);
        expect(json.body.errors).toEqual([
          'record 0: id must be a whole number from 1 to 2147483647, or null',
        ]);
        const csv = await post(query).set('Content-Type', 'text/csv').send(`id,last_name\r\n${id},Large\r\n`);
        expect(csv.status).toBe(400);
        expect(csv.body.errors).toEqual([
          'row 2, column id: must be a whole number from 1 to 2147483647, or empty',
        ]);
      }
      // The largest id there can be is looked for, and found to name nobody.
      const largest = await post(query).send([{ id: 2147483647, last_name: 'Large' }]);
      expect(largest.status).toBe(400);
      expect(largest.body.errors).toEqual(['record 0: id 2147483647 names no person in the directory']);
    }
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('refuses a quote inside an unquoted cell with 400 naming the row and column, logging no cell', async () => {
    const cell = uniqueName('Hidden');
    for (const query of ['', '?dry_run=true']) {
      const res = await post(query)
        .set('Content-Type', 'text/csv')
        .send(`first_name,last_name\r\nAda,Lovelace\r\nAda,${cell}"x\r\n`);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        'the request body is not valid CSV: row 3, column last_name: a quote inside a cell must be doubled ("") and the cell quoted',
      ]);
    }
    expect(log.text()).toContain('"status":400');
    expect(log.text()).not.toContain(cell);
  });

  it('with remove_missing lists the kept account holders and the erased', async () => {
    const everyone = await request(t.app).get('/export').set('Authorization', `Bearer ${manager}`);
    const gone = uniqueName('Gone');
    await post().send([{ first_name: 'To', last_name: gone }]);
    const res = await post('?dry_run=true&remove_missing=true').send(everyone.body);
    expect(res.status).toBe(200);
    expect(res.body.summary.erased).toBe(1);
    expect(res.body.changes).toContainEqual(
      expect.objectContaining({ where: null, action: 'erase', first_name: 'To', last_name: gone }),
    );
  });

  it('erases with remove_missing as the key that imported: the feed and the audit name it', async () => {
    const everyone = await request(t.app).get('/export').set('Authorization', `Bearer ${manager}`);
    const gone = uniqueName('Gone');
    await post().send([{ first_name: 'To', last_name: gone }]);
    const [{ id }] = await t.database.dataSource.query('SELECT id FROM people WHERE last_name = $1', [gone]);
    const res = await post('?remove_missing=true').send(everyone.body);
    expect(res.status).toBe(200);
    expect(res.body.summary.erased).toBe(1);
    const erased = await t.database.dataSource.query(
      "SELECT by_key_id FROM changes WHERE person_id = $1 AND type = 'person.erased'",
      [id],
    );
    expect(erased.map((c: { by_key_id: unknown }) => Number(c.by_key_id))).toEqual([managerKeyId]);
    const audit = await t.database.dataSource.query(
      "SELECT actor_key_id FROM audit_entries WHERE subject_id = $1 AND action = 'person.erase'",
      [id],
    );
    expect(audit.map((a: { actor_key_id: unknown }) => Number(a.actor_key_id))).toEqual([managerKeyId]);
  });

  describe('GET /export', () => {
    it('answers the CSV as an attachment, and the current members for a mail merge', async () => {
      const number = uniqueName('X');
      await post().send([
        {
          member_number: number,
          first_name: 'Csv',
          last_name: 'Member',
          memberships: [{ club: 'North', start_date: '2020-01-01', end_date: '2999-01-01' }],
        },
      ]);
      const csv = await request(t.app).get('/export?format=csv').set('Authorization', `Bearer ${manager}`);
      expect(csv.status).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv; charset=utf-8/);
      expect(csv.headers['content-disposition']).toMatch(
        /^attachment; filename="members-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      expect(csv.text).toContain(`,${number},Csv,Member,`);

      const current = await request(t.app)
        .get('/export?format=csv&current=true')
        .set('Authorization', `Bearer ${manager}`);
      expect(current.text.split('\r\n')).toContain(`Csv,Member,${number},,,,North,2999-01-01,current,`);
      const json = await request(t.app).get('/export').set('Authorization', `Bearer ${manager}`);
      expect(json.headers['content-disposition']).toMatch(/\.json"$/);
      expect(json.body).toContainEqual(expect.objectContaining({ member_number: number }));
      const audit = await t.database.dataSource.query(
        "SELECT new_value FROM audit_entries WHERE action = 'people.export' AND actor_key_id = $1 ORDER BY id",
        [managerKeyId],
      );
      expect(audit.map((a: { new_value: string }) => a.new_value)).toEqual(
        expect.arrayContaining(['csv', 'csv current', 'json']),
      );
    });

    it('answers 400 for another format, or current without csv', async () => {
      const auth = { Authorization: `Bearer ${manager}` };
      expect((await request(t.app).get('/export?format=xml').set(auth)).body.errors).toEqual([
        'format must be csv, json or xlsx',
      ]);
      expect((await request(t.app).get('/export?current=true').set(auth)).status).toBe(400);
    });
  });
});
