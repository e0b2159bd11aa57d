import request from 'supertest';
import { type IncomingRecord, ImportPeople } from '../../../src/application/people/import-people';
import { InvalidInput } from '../../../src/domain/errors';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

// The least a first import must add for its indexes to be set aside (see beginBulkInsert).
const FIRST_IMPORT = 10_000;

const INDEXES = `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition,
       i.indisunique AS unique, i.indexrelid::int AS oid
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE i.indrelid IN ('people'::regclass, 'contacts'::regclass, 'memberships'::regclass)
 ORDER BY c.relname`;

// The references of contacts and memberships, which a first import checks once, at its end.
const KEYS = `SELECT conrelid::regclass::text AS table, conname AS name,
       pg_get_constraintdef(oid) AS definition, convalidated AS validated, oid::int AS oid
  FROM pg_constraint
 WHERE contype = 'f' AND conrelid IN ('contacts'::regclass, 'memberships'::regclass)
 ORDER BY conname`;

async function* records(count: number, from = 0): AsyncIterable<IncomingRecord> {
  for (let i = from; i < from + count; i++) {
    yield {
      index: i,
      where: `record ${i}`,
      person: {
        id: null,
        firstName: `Ada${i}`,
        lastName: `Lovelace${i}`,
        chatId: `chat-${i}`,
        contacts: [{ kind: 'email', value: `Ada.${i}@Example.org`, label: null }],
        memberships: [{ club: 'Astronomers', kind: 'full', startDate: '2020-01-01', endDate: null }],
      },
    };
  }
}

/**
 * A first import (many more people than the directory holds) builds the tables' search indexes,
 * and checks what contacts and memberships refer to, once at its end instead of row by row; the
 * indexes and the foreign keys are there, the same, whether it commits or fails, and every search
 * answers from the indexes.
 */
describe.each(testDatabases)('a first import into an empty directory on $name', (target) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target);
  }, 60_000);
  afterAll(() => t.close());

  const indexes = () => t.database.dataSource.query(INDEXES);
  const keys = () => t.database.dataSource.query(KEYS);

  it('leaves every index as it was when it fails part way', async () => {
    const before = await indexes();
    const keysBefore = await keys();
    // Fails while it writes, half way through: after the indexes and keys were set aside.
    const failing = t.container.get(ImportPeople).execute({
      records: records(FIRST_IMPORT),
      onChange: (change) => {
        if (change.kind === 'add' && change.index === FIRST_IMPORT / 2) throw new Error('the reader gave up');
      },
    });

    await expect(failing).rejects.toThrow('the reader gave up');

    // The very indexes and keys (the same oids): the drops were rolled back with the rest.
    expect(await indexes()).toEqual(before);
    expect(await keys()).toEqual(keysBefore);
    expect(
      await t.database.dataSource.query('SELECT count(*)::int AS n FROM people WHERE role = $1', ['member']),
    ).toEqual([{ n: 0 }]);
  }, 120_000);

  it('writes nothing, and names the problem, when the file goes wrong after its people were being written', async () => {
    const before = await indexes();
    const keysBefore = await keys();
    const tables = () =>
      t.database.dataSource.query(
        `SELECT (SELECT count(*)::int FROM people) AS people, (SELECT count(*)::int FROM changes) AS changes,
                (SELECT count(*)::int FROM audit_entries) AS audit`,
      );
    const counts = await tables();
    // Written while checked from the 10,000th record on: the problem is 2,000 records later.
    async function* lateProblem(): AsyncIterable<IncomingRecord> {
      yield* records(FIRST_IMPORT + 2000);
      yield { index: FIRST_IMPORT + 2000, where: 'record 12000', problems: ['record 12000: bad date'] };
    }
    const failing = t.container.get(ImportPeople).execute({ records: lateProblem() });

    await expect(failing).rejects.toBeInstanceOf(InvalidInput);
    await expect(failing).rejects.toMatchObject({ messages: ['record 12000: bad date'] });
    expect(await tables()).toEqual(counts);
    expect(await indexes()).toEqual(before);
    expect(await keys()).toEqual(keysBefore);
  }, 120_000);

  it('builds its indexes and foreign keys again before it commits, and the searches use them', async () => {
    type Index = { name: string; definition: string; unique: boolean; oid: number };
    type Key = { table: string; name: string; definition: string; validated: boolean; oid: number };
    const before: Index[] = await indexes();
    const keysBefore: Key[] = await keys();
    const output = await t.container.get(ImportPeople).execute({ records: records(FIRST_IMPORT) });
    expect(output.added).toBe(FIRST_IMPORT);

    const after: Index[] = await indexes();
    const shape = (list: Index[]) => list.map(({ name, definition }) => ({ name, definition }));
    expect(shape(after)).toEqual(shape(before));
    // Built again (new oids): the search indexes; kept: the unique ones, which checked the rows.
    const rebuilt = after.filter((index, i) => index.oid !== before[i].oid);
    expect(rebuilt.map((index) => index.name)).toEqual(
      before.filter((index) => !index.unique).map((index) => index.name),
    );
    expect(rebuilt.length).toBeGreaterThanOrEqual(5);
    // Made again (new oids), the same, checked over the rows, and refusing what they refused.
    const keysAfter: Key[] = await keys();
    const keyShape = (list: Key[]) => list.map(({ oid: _oid, ...key }) => key);
    expect(keyShape(keysAfter)).toEqual(keyShape(keysBefore));
    expect(keysBefore.map((key) => key.name)).toEqual([
      'contacts_person_id_fkey',
      'memberships_club_id_fkey',
      'memberships_person_id_fkey',
    ]);
    expect(keysAfter.every((key, i) => key.validated && key.oid !== keysBefore[i].oid)).toBe(true);
    await expect(
      t.database.dataSource.query(
        "INSERT INTO contacts (person_id, kind, value, value_folded) VALUES (-1, 'email', 'a@b.c', 'a@b.c')",
      ),
    ).rejects.toMatchObject({ code: '23503' });
    const token = await t.tokenWith(['read']);
    const byEmail = await request(t.app)
      .get('/people?email=ada.1234@example.org')
      .set('Authorization', `Bearer ${token}`);
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toEqual([expect.objectContaining({ first_name: 'Ada1234', chat_id: 'chat-1234' })]);
    const byName = await request(t.app)
      .get('/people?last_name=lovelace9999')
      .set('Authorization', `Bearer ${token}`);
    expect(byName.body.map((person: { first_name: string }) => person.first_name)).toEqual(['Ada9999']);
  }, 120_000);
});
