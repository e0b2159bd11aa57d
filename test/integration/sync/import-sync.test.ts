import request from 'supertest';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { tempFile } from '../cli/import-files';
import { exportRecords, type FileRecord, importRecords, snapshot } from './sync-support';

const MEMBERSHIP = { club: 'Sync Club', kind: 'full', start_date: '2020-01-01', end_date: null };

/** SPEC §6: import as a sync. */
describe.each(testDatabases)('import as a sync on $name', (target) => {
  let t: TestApp;
  let reader: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    reader = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  /** A new member with a contact and a membership, imported; answers their exported record. */
  async function addMember(fields: Partial<FileRecord> = {}): Promise<FileRecord> {
    const tag = uniqueName('m');
    const result = await importRecords(t.database, [
      {
        first_name: `First${tag}`,
        last_name: `Last${tag}`,
        contacts: [
          { kind: 'email', value: `${tag}@example.org`, label: 'home' },
          { kind: 'phone', value: '+44 7700 900123', label: null },
        ],
        memberships: [MEMBERSHIP],
        ...fields,
      },
    ]);
    expect(result.code).toBe(0);
    const firstName = fields.first_name ?? `First${tag}`;
    const records = await exportRecords(t.database);
    const exported = records.filter((r) => r.first_name === firstName).at(-1);
    if (exported !== undefined) return exported;
    // An admin, whom no export holds: the record as imported, with the id it was given.
    const [{ id }] = await t.database.dataSource.query(
      'SELECT max(id) AS id FROM people WHERE first_name = $1',
      [firstName],
    );
    return {
      id,
      member_number: null,
      first_name: firstName,
      last_name: `Last${tag}`,
      chat_id: null,
      planner_id: null,
      role: 'member',
      contacts: [
        { kind: 'email', value: `${tag}@example.org`, label: 'home' },
        { kind: 'phone', value: '+44 7700 900123', label: null },
      ],
      memberships: [MEMBERSHIP],
      ...fields,
    } as FileRecord;
  }

  const person = async (id: number) =>
    request(t.app).get(`/people/${id}`).set('Authorization', `Bearer ${reader}`);

  it('changes nothing when the file just exported is imported again', async () => {
    await addMember({ member_number: uniqueName('N'), chat_id: uniqueName('c'), planner_id: 'p-1' });
    await t.createAccount({ role: 'admin' });
    const records = await exportRecords(t.database);
    const before = await snapshot(t.database);

    const result = await importRecords(t.database, records);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`: 0 added, 0 updated, ${records.length} unchanged, 0 erased, in \\d+\\.\\d s\\n$`),
    );
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('makes a person named by id match the record, keeping the ids of unchanged contacts and memberships', async () => {
    const record = await addMember();
    const before = (await person(record.id as number)).body;
    const number = uniqueName('N');
    const chatId = uniqueName('c');

    const result = await importRecords(t.database, [
      {
        ...record,
        first_name: 'Renamed',
        chat_id: chatId,
        planner_id: 'planner-9',
        member_number: number,
        contacts: [record.contacts[0], { kind: 'email', value: 'new@example.org', label: null }],
        memberships: [
          MEMBERSHIP,
          { club: 'Second Club', kind: null, start_date: '2024-01-01', end_date: '2024-12-31' },
        ],
      },
    ]);

    expect(result.stdout).toMatch(/: 0 added, 1 updated, 0 unchanged, 0 erased/);
    const after = (await person(record.id as number)).body;
    expect(after).toMatchObject({
      first_name: 'Renamed',
      chat_id: chatId,
      planner_id: 'planner-9',
      member_number: number,
    });
    const kept = before.contacts.find((c: { kind: string }) => c.kind === 'email');
    expect(after.contacts).toEqual([
      kept,
      { id: expect.any(Number), kind: 'email', value: 'new@example.org', label: null },
    ]);
    expect(after.contacts[1].id).toBeGreaterThan(kept.id);
    expect(after.memberships[0]).toEqual(before.memberships[0]);
    expect(after.memberships.map((m: { club: { name: string } }) => m.club.name)).toEqual([
      'Sync Club',
      'Second Club',
    ]);
  });

  it('names a person by member_number when the record has no id', async () => {
    const number = uniqueName('N');
    const record = await addMember({ member_number: number });

    const result = await importRecords(t.database, [{ ...record, id: null, last_name: 'ByNumber' }]);

    expect(result.stdout).toMatch(/: 0 added, 1 updated, 0 unchanged/);
    expect((await person(record.id as number)).body.last_name).toBe('ByNumber');
  });

  it('adds a record that names nobody, with its member_number', async () => {
    const number = uniqueName('N');
    const result = await importRecords(t.database, [
      { first_name: 'New', last_name: 'Member', member_number: number, memberships: [MEMBERSHIP] },
    ]);
    expect(result.stdout).toMatch(/: 1 added, 0 updated, 0 unchanged/);
    const found = await request(t.app)
      .get('/people')
      .query({ member_number: number })
      .set('Authorization', `Bearer ${reader}`);
    expect(found.body).toEqual([expect.objectContaining({ first_name: 'New', member_number: number })]);
  });

  it('stores a blank member_number as null', async () => {
    const record = await addMember({ member_number: '   ' });
    expect(record.member_number).toBeNull();
  });

  it('lets two people swap chat_ids and member numbers in one import', async () => {
    const a = await addMember({ chat_id: uniqueName('ca'), member_number: uniqueName('Na') });
    const b = await addMember({ chat_id: uniqueName('cb'), member_number: uniqueName('Nb') });

    const result = await importRecords(t.database, [
      { ...a, chat_id: b.chat_id, member_number: b.member_number },
      { ...b, chat_id: a.chat_id, member_number: a.member_number },
    ]);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect((await person(a.id as number)).body).toMatchObject({
      chat_id: b.chat_id,
      member_number: b.member_number,
    });
    expect((await person(b.id as number)).body).toMatchObject({
      chat_id: a.chat_id,
      member_number: a.member_number,
    });
  });

  it('audits every change as made by the command line, and the feed records them without a key', async () => {
    const record = await addMember();
    const result = await importRecords(t.database, [{ ...record, last_name: 'Audited' }]);
    expect(result.code).toBe(0);

    const audit = await cli(t.database, ['audit', '--person', String(record.id)]);
    expect(audit.stdout).toMatch(
      new RegExp(
        `cli {2}person\\.update {2}person ${record.id} {2}last_name: "${record.last_name}" -> "Audited"`,
      ),
    );
    expect(audit.stdout).toMatch(new RegExp(`cli {2}person\\.create {2}person ${record.id}`));
    const changes = await t.database.dataSource.query(
      'SELECT type, fields, by_key_id FROM changes WHERE person_id = $1 ORDER BY seq',
      [record.id],
    );
    expect(changes).toEqual([
      { type: 'person.created', fields: null, by_key_id: null },
      { type: 'person.updated', fields: ['last_name'], by_key_id: null },
    ]);
  });

  describe('refuses, writing nothing, with a line naming the record', () => {
    async function refused(records: unknown[], ...options: string[]): Promise<string> {
      const before = await snapshot(t.database);
      const result = await importRecords(t.database, records, ...options);
      expect(result.code).toBe(1);
      expect(await snapshot(t.database)).toEqual(before);
      return result.stderr;
    }

    it('an id that names nobody', async () => {
      const record = await addMember();
      expect(await refused([record, { ...record, id: 999_999_999 }])).toContain(
        'record 1: id 999999999 names no person in the directory',
      );
    });

    it('two records naming the same person, by id and by member_number', async () => {
      const number = uniqueName('N');
      const record = await addMember({ member_number: number });
      expect(await refused([record, { ...record, id: null, first_name: 'Twin' }])).toContain(
        `record 1: names person ${record.id}, as record 0 does`,
      );
    });

    it('a member_number used twice in the file', async () => {
      const number = uniqueName('N');
      expect(
        await refused([
          { first_name: 'A', last_name: 'B', member_number: number },
          { first_name: 'C', last_name: 'D', member_number: number },
        ]),
      ).toContain(`record 1: member_number "${number}" is also used by record 0`);
    });

    it('a member_number or chat_id held by a person the file does not name', async () => {
      const holder = await addMember({ member_number: uniqueName('N'), chat_id: uniqueName('c') });
      const other = await addMember();
      const stderr = await refused([
        { ...other, member_number: holder.member_number, chat_id: holder.chat_id },
      ]);
      expect(stderr).toContain(
        `record 0: chat_id "${holder.chat_id}" is already used by person ${holder.id}, whom no record names`,
      );
      expect(stderr).toContain(
        `record 0: member_number "${holder.member_number}" is already used by person ${holder.id}, whom no record names`,
      );
    });

    it('a record whose member_number names an admin', async () => {
      const number = uniqueName('N');
      const admin = await addMember({ role: 'admin', member_number: number });
      expect(await refused([{ first_name: 'A', last_name: 'B', member_number: number }])).toContain(
        `record 0: person ${admin.id} is an admin; an import does not change admins`,
      );
    });

    it('a record that would change an admin, or an erased person', async () => {
      const admin = await addMember({ role: 'admin' });
      expect(await refused([{ ...admin, first_name: 'Changed' }])).toContain(
        `record 0: person ${admin.id} is an admin; an import does not change admins`,
      );
      const gone = await addMember();
      expect((await cli(t.database, ['people', 'erase', String(gone.id), '--yes'])).code).toBe(0);
      expect(await refused([{ ...gone, first_name: 'Back' }])).toContain(
        `record 0: person ${gone.id} was erased; an import does not change erased people`,
      );
    });

    it('a record that would change a role', async () => {
      const record = await addMember();
      expect(await refused([{ ...record, role: 'admin' }])).toContain(
        `record 0: person ${record.id} is a member; an import does not change roles`,
      );
    });

    it('a bad member_number', async () => {
      expect(await refused([{ first_name: 'A', last_name: 'B', member_number: 'x'.repeat(65) }])).toContain(
        'record 0: member_number must be at most 64 characters',
      );
      expect(await refused([{ first_name: 'A', last_name: 'B', member_number: 'a\u0000' }])).toContain(
        'record 0: member_number must not contain the NUL character (U+0000)',
      );
    });
  });

  it('with --dry-run prints the summary and every change, old and new, and writes nothing', async () => {
    const record = await addMember({ member_number: uniqueName('N') });
    const before = await snapshot(t.database);

    const result = await importRecords(
      t.database,
      [
        { ...record, first_name: 'Dry', member_number: null },
        { first_name: 'Would', last_name: 'Add' },
      ],
      '--dry-run',
    );

    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `record 0, person ${record.id}: first_name: "${record.first_name}" -> "Dry"`,
      `record 0, person ${record.id}: member_number: "${record.member_number}" -> null`,
      'record 1: add Would Add',
    ]);
    expect(lines[3]).toMatch(
      /^dry run of \S+: 1 to add, 1 to update, 0 unchanged, 0 to erase; nothing was written \(\d+\.\d s\)$/,
    );
    expect(lines).toHaveLength(5);
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('with --remove-missing erases the members no record names, and lists account holders instead', async () => {
    const kept = await addMember();
    const gone = await addMember();
    const holder = await t.createAccount({ role: 'member' });
    const admin = await t.createAccount({ role: 'admin' });
    const everyone = await exportRecords(t.database);
    const named = everyone.filter((r) => r.id !== gone.id && r.id !== holder.personId);
    // Other tests' members are named too: only `gone` and the account holder are missing.

    const dry = await importRecords(t.database, named, '--remove-missing', '--dry-run');
    expect(dry.stdout).toContain(
      `erase person ${gone.id} (${gone.first_name} ${gone.last_name}): no record names them`,
    );
    expect(dry.stdout).toContain(`kept person ${holder.personId} `);
    expect(dry.stdout).toMatch(/0 to add, 0 to update, \d+ unchanged, 1 to erase; 1 not named but kept/);
    expect((await person(gone.id as number)).status).toBe(200);

    const result = await importRecords(t.database, named, '--remove-missing');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/0 added, 0 updated, \d+ unchanged, 1 erased; 1 not named but kept/);
    expect(result.stdout).toContain(`kept person ${holder.personId} `);
    expect((await person(gone.id as number)).status).toBe(404);
    expect((await person(kept.id as number)).status).toBe(200);
    expect((await person(holder.personId)).status).toBe(200);
    const [row] = await t.database.dataSource.query(
      'SELECT first_name, erased_at FROM people WHERE id = $1',
      [admin.personId],
    );
    expect(row.erased_at).toBeNull();
  });

  it('leaves the directory exactly as it was when the sync fails half-way through writing', async () => {
    const record = await addMember({ member_number: uniqueName('N') });
    const victim = await addMember();
    const everyone = await exportRecords(t.database);
    const many = Array.from({ length: 1500 }, (_, i) => ({ first_name: `Bulk${i}`, last_name: 'Person' }));
    // Passes every check, then fails in the second batch of writes, after the first was written
    // (and after the erasure and the update of the first records).
    await t.database.dataSource.query(`
      CREATE OR REPLACE FUNCTION fail_on_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'boom'; END $$`);
    await t.database.dataSource.query(
      "CREATE TRIGGER boom BEFORE INSERT ON people FOR EACH ROW WHEN (NEW.first_name = 'Boom') EXECUTE FUNCTION fail_on_boom()",
    );
    try {
      const before = await snapshot(t.database);
      const result = await importRecords(
        t.database,
        [
          ...everyone
            .filter((r) => r.id !== victim.id)
            .map((r) => (r.id === record.id ? { ...r, first_name: 'Half' } : r)),
          ...many,
          { first_name: 'Boom', last_name: 'Person' },
        ],
        '--remove-missing',
      );
      expect(result.code).toBe(1);
      expect(await snapshot(t.database)).toEqual(before);
    } finally {
      await t.database.dataSource.query('DROP TRIGGER boom ON people');
    }
  });

  it('exports id and member_number, and serves member_number as an exact filter in every form', async () => {
    const number = uniqueName('N');
    const record = await addMember({ member_number: number });
    expect(record).toMatchObject({ id: expect.any(Number), member_number: number });
    const auth = { Authorization: `Bearer ${reader}` };
    const viaQuery = await request(t.app).get('/people').query({ member_number: number }).set(auth);
    const viaBody = await request(t.app).get('/people').set(auth).send({ member_number: number });
    const viaSearch = await request(t.app).post('/people/search').set(auth).send({ member_number: number });
    const partial = await request(t.app)
      .get('/people')
      .query({ member_number: number.slice(0, -1) })
      .set(auth);
    for (const res of [viaQuery, viaBody, viaSearch]) {
      expect(res.body.map((p: { id: number }) => p.id)).toEqual([record.id]);
    }
    expect(partial.body).toEqual([]);
    const tooLong = await request(t.app)
      .get('/people')
      .query({ member_number: 'x'.repeat(256) })
      .set(auth);
    expect(tooLong.status).toBe(400);
  });

  it('refuses a PATCH naming member_number, like the other read-only fields', async () => {
    const [id] = await t.addPeople([newPerson({ memberNumber: uniqueName('N') })]);
    for (const body of [{ 'person[member_number]': 'X' }, { person: { member_number: 'X' } }]) {
      const res = await request(t.app)
        .patch(`/people/${id}`)
        .set('Authorization', `Bearer ${reader}`)
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatch(/member_number/);
    }
    const planner = await request(t.app)
      .patch(`/people/${id}`)
      .set('Authorization', `Bearer ${reader}`)
      .send({ 'person[planner_id]': 'X' });
    expect(planner.status).toBe(400);
  });

  it('refuses a file that is not an array, or not JSON, in one line', async () => {
    const notArray = await cli(t.database, ['import', tempFile('{"first_name": "A"}')]);
    expect(notArray.stderr).toMatch(
      /^error: 1 problem in \S+; nothing was imported\n {2}the file must hold a JSON array of people\n$/,
    );
    const trailing = await cli(t.database, ['import', tempFile('[{"first_name": "A", "last_name": "B"},]')]);
    expect(trailing.stderr).toMatch(
      /^error: \S+ is not valid JSON: a value is missing in the array \(line 1, column \d+\)\n$/,
    );
  });
});
