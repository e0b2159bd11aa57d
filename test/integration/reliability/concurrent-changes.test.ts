import type { Server } from 'node:http';
import request from 'supertest';
import type { AuditLog } from '../../../src/application/ports/audit-log';
import { TYPES } from '../../../src/application/ports/tokens';
import type { AuditEntry } from '../../../src/domain/audit-entry';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

const VERSION_IN_TAG = /^"v(\d+)-\d{8}"$/;

type Fields = { first_name: string; last_name: string; chat_id: string | null };

describe.each(testDatabases)('concurrent changes on $name', (target) => {
  let t: TestApp;
  let server: Server;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    // One listening server for all the requests, rather than one per supertest call.
    server = t.app.listen(0);
    token = await t.tokenWith(['read', 'write']);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  const patch = (id: number, person: Partial<Fields>) =>
    request(server).patch(`/people/${id}`).set('Authorization', `Bearer ${token}`).send({ person });

  const auditOf = async (id: number): Promise<AuditEntry[]> =>
    (await t.container.get<AuditLog>(TYPES.AuditLog).list({ personId: id, limit: 1000 }))
      .filter((entry) => entry.subjectType === 'person' && entry.subjectId === id)
      .sort((a, b) => a.id - b.id);

  it('50 concurrent PATCHes of one person lose no change and never interleave: they serialise', async () => {
    const original: Fields = { first_name: 'Orig', last_name: 'Inal', chat_id: null };
    const [id] = await t.addPeople([newPerson({ firstName: 'Orig', lastName: 'Inal' })]);
    // Every change differs from every other, so each one is effective; some change two fields at
    // once, which another request must never see half-done.
    const changes: Partial<Fields>[] = Array.from({ length: 50 }, (_, i) =>
      i % 3 === 0
        ? { first_name: `First${i}`, last_name: `Last${i}` }
        : i % 3 === 1
          ? { first_name: `First${i}` }
          : { last_name: `Last${i}`, chat_id: uniqueName(`chat${i}-`) },
    );

    const answers = await Promise.all(changes.map((change) => patch(id, change)));

    for (const answer of answers) expect(answer.status).toBe(200);
    const versions = answers.map((answer) => Number(VERSION_IN_TAG.exec(answer.headers.etag)?.[1]));
    // One new version per change, none skipped and none shared.
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));

    // Replaying the changes one after another in version order gives exactly what each request
    // answered: the outcome is that of some serial order.
    const byVersion = answers
      .map((answer, index) => ({ answer, change: changes[index], version: versions[index] }))
      .sort((a, b) => a.version - b.version);
    let state = { ...original };
    for (const { answer, change } of byVersion) {
      state = { ...state, ...change };
      expect({
        first_name: answer.body.first_name,
        last_name: answer.body.last_name,
        chat_id: answer.body.chat_id,
      }).toEqual(state);
    }

    const final = await request(server).get(`/people/${id}`).set('Authorization', `Bearer ${token}`);
    expect(final.body).toMatchObject(state);
    expect(final.headers.etag).toMatch(/^"v51-/);

    // The audit log tells the same story, field by field: each entry starts where the one before
    // it ended, from the original value to the final one.
    const entries = await auditOf(id);
    const expectedEntries = changes.reduce((sum, change) => sum + Object.keys(change).length, 0);
    expect(entries).toHaveLength(expectedEntries);
    for (const field of ['first_name', 'last_name', 'chat_id'] as const) {
      const chain = entries.filter((entry) => entry.field === field);
      let previous = original[field];
      for (const entry of chain) {
        expect(entry.oldValue).toBe(previous);
        previous = entry.newValue;
      }
      expect(previous).toBe(state[field]);
    }
  });

  it('50 concurrent PATCHes to the same value: one effective change, one version, one audit entry', async () => {
    const [id] = await t.addPeople([newPerson({ firstName: 'Before' })]);
    const answers = await Promise.all(Array.from({ length: 50 }, () => patch(id, { first_name: 'Same' })));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.first_name).toBe('Same');
      expect(answer.headers.etag).toMatch(/^"v2-/);
    }
    const entries = await auditOf(id);
    expect(entries.map((entry) => [entry.field, entry.oldValue, entry.newValue])).toEqual([
      ['first_name', 'Before', 'Same'],
    ]);
  });

  it('20 concurrent PATCHes giving one chat_id to different people: one wins, the others get 409', async () => {
    const ids = await t.addPeople(Array.from({ length: 20 }, () => newPerson()));
    const chatId = uniqueName('contested');

    const answers = await Promise.all(
      ids.map((id) => patch(id, { first_name: 'Claimant', chat_id: chatId })),
    );

    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(409)]);
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect(answer.body).toEqual({ errors: [expect.stringContaining('chat_id')] });
    }
    const winner = ids[answers.findIndex((answer) => answer.status === 200)];
    const holders = await t.database.dataSource.query(
      'SELECT id, first_name FROM people WHERE chat_id = $1',
      [chatId],
    );
    expect(holders).toEqual([{ id: winner, first_name: 'Claimant' }]);
    // The losers' changes were refused whole: no name changed, nothing audited.
    const [{ count }] = await t.database.dataSource.query(
      "SELECT count(*)::int AS count FROM people WHERE id = ANY($1) AND first_name = 'Claimant'",
      [ids],
    );
    expect(count).toBe(1);
    for (const id of ids.filter((id) => id !== winner)) expect(await auditOf(id)).toEqual([]);
    expect((await auditOf(winner)).map((entry) => entry.field).sort()).toEqual(['chat_id', 'first_name']);
  });

  it('10 concurrent revocations of one key: one revokes it, the others find no active key', async () => {
    const account = await t.createAccount({ permissions: ['read'] });
    const user = await t.issueToken(account.username, account.password);
    await t.issueToken(account.username, account.password, { name: 'to revoke' });
    const keys = await request(server).get('/keys').set('Authorization', `Bearer ${user}`);
    const target = keys.body.find((key: { name: string }) => key.name === 'to revoke').id as number;

    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        request(server).delete(`/keys/${target}`).set('Authorization', `Bearer ${user}`),
      ),
    );

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(404)]);
    const [{ count }] = await t.database.dataSource.query(
      "SELECT count(*)::int AS count FROM audit_entries WHERE action = 'key.revoke' AND subject_id = $1",
      [target],
    );
    expect(count).toBe(1);
  });
});
