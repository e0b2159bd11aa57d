import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { encodeCursor } from '../../../src/application/changes/change-cursor';
import { PruneChanges } from '../../../src/application/changes/prune-changes';
import type { ChangedField, NewChange } from '../../../src/application/ports/change-log';
import { TYPES } from '../../../src/application/ports/tokens';
import type { UnitOfWork } from '../../../src/application/ports/unit-of-work';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

interface ChangeJson {
  seq: number;
  type: string;
  person_id: number;
  fields: string[] | null;
  by: number | null;
  person: { id: number; first_name: string } | null;
}

/** Base64url of any text: what a client might make up. */
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

describe.each(testDatabases)('GET /changes on $name', (target) => {
  let t: TestApp;
  let reader: string;
  let writer: string;
  let writerKeyId: number;

  beforeAll(async () => {
    t = await createTestApp(target);
    reader = await t.tokenWith(['read']);
    writer = await t.tokenWith(['read', 'write']);
    writerKeyId = (await request(t.app).get('/keys').set('Authorization', `Bearer ${writer}`)).body[0].id;
  });
  afterAll(() => t.close());

  const get = (path: string, token = reader) =>
    request(t.app).get(path).set('Authorization', `Bearer ${token}`);
  const patch = (id: number, body: object) =>
    request(t.app).patch(`/people/${id}`).set('Authorization', `Bearer ${writer}`).send(body);
  /** Where the feed stands now, as GET /people tells it. */
  const cursorNow = async () => (await get('/people?limit=1')).headers['changes-cursor'] as string;
  const record = (changes: NewChange[]) =>
    t.container.get<UnitOfWork>(TYPES.UnitOfWork).run((tx) => tx.changes.record(changes));

  /** `count` updates of `field`, made by the command line, going round `ids` in turn. */
  const recordUpdates = (count: number, ids: number[], field: ChangedField) =>
    record(
      Array.from({ length: count }, (_, i) => ({
        type: 'person.updated' as const,
        personId: ids[i % ids.length],
        fields: [field],
        byKeyId: null,
      })),
    );

  /** Every change after `cursor`, following has_more; and the last cursor. */
  async function follow(cursor: string, limit = 100): Promise<{ changes: ChangeJson[]; cursor: string }> {
    const changes: ChangeJson[] = [];
    for (;;) {
      const res = await get(`/changes?after=${cursor}&limit=${limit}`);
      expect(res.status).toBe(200);
      changes.push(...res.body.changes);
      cursor = res.body.cursor;
      if (!res.body.has_more) return { changes, cursor };
    }
  }

  it('follows a PATCH from the cursor of a list: the change, its fields, its key and the person as now', async () => {
    const [id] = await t.addPeople([newPerson({ firstName: 'Vera', lastName: 'Rubin' })]);
    const start = await cursorNow();

    await patch(id, { 'person[first_name]': 'Vera C.' });
    await patch(id, { 'person[last_name]': 'Cooper Rubin' });
    const res = await get(`/changes?after=${start}`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ changes: expect.any(Array), cursor: expect.any(String), has_more: false });
    const [first, second] = res.body.changes;
    expect(res.body.changes).toHaveLength(2);
    expect(first).toEqual({
      seq: expect.any(Number),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      type: 'person.updated',
      person_id: id,
      fields: ['first_name'],
      by: writerKeyId,
      person: (await get(`/people/${id}`)).body,
    });
    expect(first.person).toMatchObject({ first_name: 'Vera C.', last_name: 'Cooper Rubin' });
    expect(second).toMatchObject({ type: 'person.updated', fields: ['last_name'] });
    expect(second.seq).toBeGreaterThan(first.seq);
  });

  it('gives the same cursor back while nothing is new, and the new change once there is one', async () => {
    const [id] = await t.addPeople([newPerson()]);
    const start = await cursorNow();

    const idle = await get(`/changes?after=${start}`);
    expect(idle.body).toEqual({ changes: [], cursor: start, has_more: false });

    await patch(id, { 'person[first_name]': 'Later' });
    const next = await get(`/changes?after=${start}`);
    expect(next.body.changes.map((c: ChangeJson) => c.person_id)).toEqual([id]);
    expect(next.body.cursor).not.toBe(start);
    expect((await get(`/changes?after=${next.body.cursor}`)).body).toEqual({
      changes: [],
      cursor: next.body.cursor,
      has_more: false,
    });
  });

  it('pages with limit and has_more, each change once and in seq order', async () => {
    const ids = await t.addPeople(Array.from({ length: 7 }, () => newPerson()));
    const start = await cursorNow();
    for (const id of ids) await patch(id, { 'person[first_name]': uniqueName('N') });

    const first = await get(`/changes?after=${start}&limit=3`);
    expect(first.body.changes).toHaveLength(3);
    expect(first.body.has_more).toBe(true);
    const all = await follow(start, 3);

    expect(all.changes.map((c) => c.person_id)).toEqual(ids);
    const seqs = all.changes.map((c) => c.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('sends a long page as the store reads it (chunked), the same changes and cursor as short pages give', async () => {
    const ids = await t.addPeople(Array.from({ length: 4 }, () => newPerson()));
    const start = await cursorNow();
    await recordUpdates(150, ids, 'first_name');

    const long = await get(`/changes?after=${start}&limit=1000`);
    const short = await get(`/changes?after=${long.body.cursor}`);
    const paged = await follow(start, 7);

    expect(long.status).toBe(200);
    expect(long.headers['transfer-encoding']).toBe('chunked');
    expect(long.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(long.body.changes).toEqual(paged.changes);
    expect(long.body.changes.map((c: ChangeJson) => c.person_id)).toEqual(
      Array.from({ length: 150 }, (_, i) => ids[i % 4]),
    );
    expect({ cursor: long.body.cursor, has_more: long.body.has_more }).toEqual({
      cursor: paged.cursor,
      has_more: false,
    });
    // A page that fits in one write goes out whole, with its length.
    expect(short.headers['content-length']).toBe(String(Buffer.byteLength(short.text)));
  });

  it('starts from the oldest change kept without after, 100 at most by default', async () => {
    const ids = await t.addPeople(Array.from({ length: 3 }, () => newPerson()));
    await recordUpdates(120, ids, 'contacts');
    const res = await get('/changes');
    expect(res.body.changes).toHaveLength(100);
    expect(res.body.has_more).toBe(true);
    const [{ min }] = await t.database.dataSource.query('SELECT min(seq)::int AS min FROM changes');
    expect(res.body.changes[0].seq).toBe(min);
  });

  it('tells GET /people in all three forms where the feed stands, taken before the people are read', async () => {
    const [id] = await t.addPeople([newPerson({ lastName: uniqueName('Form') })]);
    await patch(id, { 'person[first_name]': 'Before' });
    const [{ max }] = await t.database.dataSource.query('SELECT max(seq)::int AS max FROM changes');
    const { directory_id: directoryId } = (
      await t.database.dataSource.query('SELECT directory_id FROM directory_meta')
    )[0];
    const expected = encodeCursor({ directoryId, seq: max });

    const answers = [
      await get('/people?has_chat=false&limit=5'),
      await get('/people').send({ active: 'no' }),
      await request(t.app).post('/people/search').set('Authorization', `Bearer ${reader}`).send({}),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers['changes-cursor']).toBe(expected);
    }
    // The change made before the list is not in the feed after its cursor.
    expect((await get(`/changes?after=${expected}`)).body.changes).toEqual([]);
  });

  it("never shows an admin's change, yet moves the cursor past it", async () => {
    const [admin, member] = await t.addPeople([newPerson({ role: 'admin' }), newPerson()]);
    const start = await cursorNow();
    await record([
      { type: 'person.updated', personId: admin, fields: ['first_name'], byKeyId: null },
      { type: 'person.updated', personId: member, fields: ['first_name'], byKeyId: null },
      { type: 'person.updated', personId: admin, fields: ['last_name'], byKeyId: null },
    ]);

    const all = await follow(start);
    expect(all.changes.map((c) => c.person_id)).toEqual([member]);
    const [{ max }] = await t.database.dataSource.query('SELECT max(seq)::int AS max FROM changes');
    const onlyAdmin = await get(`/changes?after=${start}&limit=1`);
    expect(onlyAdmin.body.changes).toEqual([]);
    expect(onlyAdmin.body.has_more).toBe(true);
    expect(all.cursor).toBe(encodeCursor({ directoryId: await directoryId(), seq: max }));
  });

  it('shows a change of a person who is no longer there with person null', async () => {
    const start = await cursorNow();
    await record([{ type: 'person.erased', personId: 2_000_000_000, fields: null, byKeyId: null }]);
    const res = await get(`/changes?after=${start}`);
    expect(res.body.changes).toEqual([
      expect.objectContaining({
        type: 'person.erased',
        person_id: 2_000_000_000,
        fields: null,
        person: null,
      }),
    ]);
  });

  async function directoryId(): Promise<string> {
    const [row] = await t.database.dataSource.query('SELECT directory_id FROM directory_meta');
    return row.directory_id;
  }

  describe('bad input', () => {
    it.each([
      ['0', 'limit must be a whole number from 1 to 1000'],
      ['1001', 'limit must be a whole number from 1 to 1000'],
      ['ten', 'limit must be a whole number from 1 to 1000'],
      ['-1', 'limit must be a whole number from 1 to 1000'],
      ['1.5', 'limit must be a whole number from 1 to 1000'],
    ])('answers 400 to limit=%s', async (limit, message) => {
      const res = await get(`/changes?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: [message] });
    });

    it('accepts limit 1 and 1000', async () => {
      expect((await get('/changes?limit=1')).status).toBe(200);
      expect((await get('/changes?limit=1000')).status).toBe(200);
    });

    it('answers 400 to a malformed cursor', async () => {
      const seq = 1;
      const dir = await directoryId();
      for (const after of [
        'nonsense',
        '',
        '%00',
        cursorOf(`v2.${dir}.${seq}`),
        cursorOf(`v1.${dir}.-1`),
        cursorOf(`v1.${dir}.01`),
        cursorOf(`v1.${dir}.1.2`),
        cursorOf(`v1.${dir.toUpperCase()}.1`),
        `${encodeCursor({ directoryId: dir, seq })}=`,
        'x'.repeat(300),
      ]) {
        const res = await get(`/changes?after=${after}`);
        expect([after, res.status]).toEqual([after, 400]);
        expect(res.body.errors).toHaveLength(1);
      }
    });

    it("answers 400 to another directory's cursor, and to a cursor beyond the newest change", async () => {
      const foreign = await get(`/changes?after=${encodeCursor({ directoryId: randomUUID(), seq: 1 })}`);
      expect(foreign.status).toBe(400);
      expect(foreign.body).toEqual({
        errors: ['after is a cursor of another directory: use a cursor this directory gave you'],
      });
      const beyond = await get(
        `/changes?after=${encodeCursor({ directoryId: await directoryId(), seq: 2 ** 40 })}`,
      );
      expect(beyond.status).toBe(400);
    });

    it('answers 400 to an unknown parameter and to a repeated one', async () => {
      expect((await get('/changes?since=1')).body).toEqual({
        errors: ['unknown query parameter "since"; the parameters are after, limit'],
      });
      expect((await get('/changes?limit=1&limit=2')).status).toBe(400);
    });

    it('answers 401 without a key, and to a key without read', async () => {
      expect((await request(t.app).get('/changes')).status).toBe(401);
      const writeOnly = await t.tokenWith(['write']);
      const res = await get('/changes', writeOnly);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ errors: ['this key lacks the read permission'] });
    });

    it('answers 405 with Allow to another method', async () => {
      const res = await request(t.app).post('/changes').set('Authorization', `Bearer ${reader}`);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toMatch(/GET/);
    });
  });

  describe('retention', () => {
    it('answers 410 to a cursor older than the changes kept, and a fresh list gives one that works', async () => {
      const [id] = await t.addPeople([newPerson()]);
      const old = await cursorNow();
      await patch(id, { 'person[first_name]': 'Pruned' });
      // Retention of 1 day, run two days from now: everything so far is older.
      jest.useFakeTimers({
        doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'],
      });
      jest.setSystemTime(Date.now() + 2 * 24 * 3600 * 1000);
      try {
        expect(await t.container.get(PruneChanges).execute({ retentionDays: 1 })).toBeGreaterThan(0);
      } finally {
        jest.useRealTimers();
      }

      const gone = await get(`/changes?after=${old}`);
      expect(gone.status).toBe(410);
      expect(gone.body).toEqual({
        errors: [
          'after is older than the changes kept: list /people again (its Changes-Cursor header is where to follow from)',
        ],
      });

      const fresh = await cursorNow();
      expect((await get(`/changes?after=${fresh}`)).body).toEqual({
        changes: [],
        cursor: fresh,
        has_more: false,
      });
      await patch(id, { 'person[first_name]': 'After' });
      expect((await get(`/changes?after=${fresh}`)).body.changes).toHaveLength(1);
      // Without after: from the oldest kept, the change after the pruning.
      expect((await get('/changes')).body.changes.map((c: ChangeJson) => c.person?.first_name)).toEqual([
        'After',
      ]);
    });

    it('keeps changes younger than the retention', async () => {
      const [id] = await t.addPeople([newPerson()]);
      const start = await cursorNow();
      await patch(id, { 'person[first_name]': 'Young' });
      expect(await t.container.get(PruneChanges).execute({ retentionDays: 1 })).toBe(0);
      expect((await get(`/changes?after=${start}`)).body.changes).toHaveLength(1);
    });
  });
});
