import request from 'supertest';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';

/** SPEC §9: DELETE /people/:id and GET /people/:id/data, with the manage permission (IMPORT-API.md). */
describe.each(testDatabases)('erasure and subject access over HTTP on $name', (target) => {
  let t: TestApp;
  let manager: { personId: number; token: string; keyId: number };
  let writer: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    const account = await t.createAccount({ permissions: ['read', 'write', 'manage'] });
    const token = await t.issueToken(account.username, account.password, { permissions: ['manage'] });
    const keys = await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`);
    manager = { personId: account.personId, token, keyId: keys.body[0].id };
    writer = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const query = (sql: string, params: unknown[] = []) => t.database.dataSource.query(sql, params);

  async function addMember() {
    const tag = uniqueName('h');
    return t.addPerson({
      firstName: `Grace${tag}`,
      lastName: `Hopper${tag}`,
      chatId: `chat-${tag}`,
      contacts: [{ kind: 'email', value: `${tag}@example.org`, label: null }],
      memberships: [{ club: 'HTTP Club', kind: 'full', startDate: '2020-01-01', endDate: null }],
    });
  }

  const routes = [
    { name: 'DELETE /people/:id', send: (path: string) => request(t.app).delete(path), suffix: '' },
    { name: 'GET /people/:id/data', send: (path: string) => request(t.app).get(path), suffix: '/data' },
  ];

  describe.each(routes)('$name', ({ send, suffix }) => {
    it('checks, in order: credentials (401), the manage permission (401 naming it), then the id (400, 404)', async () => {
      const id = await addMember();
      for (const path of [`/people/${id}${suffix}`, `/people/abc${suffix}`]) {
        const anonymous = await send(path);
        expect([path, anonymous.status, anonymous.body]).toEqual([
          path,
          401,
          { errors: ['missing bearer token'] },
        ]);
        const refused = await send(path).set(as(writer));
        expect([path, refused.status, refused.body]).toEqual([
          path,
          401,
          { errors: ['this key lacks the manage permission'] },
        ]);
      }
      expect((await send(`/people/abc${suffix}`).set(as(manager.token))).body).toEqual({
        errors: ['id must be a positive integer'],
      });
      expect((await send(`/people/0${suffix}`).set(as(manager.token))).status).toBe(400);
      const nobody = await send(`/people/2000000000${suffix}`).set(as(manager.token));
      expect(nobody.status).toBe(404);
      const [{ erased_at: erasedAt }] = await query('SELECT erased_at FROM people WHERE id = $1', [id]);
      expect(erasedAt).toBeNull();
    });

    it('answers 404 for an admin and for someone already erased, as GET /people/:id does', async () => {
      const admin = await t.createAccount({ role: 'admin' });
      expect((await send(`/people/${admin.personId}${suffix}`).set(as(manager.token))).status).toBe(404);
      const id = await addMember();
      expect((await cli(t.database, ['people', 'erase', String(id), '--yes'])).code).toBe(0);
      expect((await send(`/people/${id}${suffix}`).set(as(manager.token))).status).toBe(404);
      const [{ username }] = await query('SELECT username FROM people WHERE id = $1', [admin.personId]);
      expect(username).toBe(admin.username);
    });
  });

  it('DELETE /people/:id erases the person, audited with the key, and the feed says person.erased by it', async () => {
    const id = await addMember();
    const holder = await t.createAccount({ role: 'member' });
    const holderToken = await t.issueToken(holder.username, holder.password);

    const res = await request(t.app).delete(`/people/${id}`).set(as(manager.token));
    const account = await request(t.app).delete(`/people/${holder.personId}`).set(as(manager.token));

    expect([res.status, res.body]).toEqual([200, { erased: id }]);
    expect([account.status, account.body]).toEqual([200, { erased: holder.personId }]);
    expect((await request(t.app).get(`/people/${id}`).set(as(writer))).status).toBe(404);
    const [row] = await query('SELECT first_name, chat_id, erased_at FROM people WHERE id = $1', [id]);
    expect(row).toEqual({ first_name: 'erased', chat_id: null, erased_at: expect.any(Date) });
    const audit = await query(
      "SELECT actor_account_id, actor_key_id FROM audit_entries WHERE action = 'person.erase' AND subject_id = $1",
      [id],
    );
    expect(audit).toEqual([{ actor_account_id: manager.personId, actor_key_id: manager.keyId }]);
    const feed = await request(t.app).get('/changes').query({ limit: 1000 }).set(as(writer));
    expect(feed.body.changes.filter((c: { person_id: number }) => c.person_id === id).at(-1)).toMatchObject({
      type: 'person.erased',
      by: manager.keyId,
      person: null,
    });
    // The account holder's key stopped working at once.
    expect((await request(t.app).get('/keys').set(as(holderToken))).status).toBe(401);
  });

  it('GET /people/:id/data answers the JSON that people export-data writes', async () => {
    const id = await addMember();
    const patched = await request(t.app)
      .patch(`/people/${id}`)
      .set(as(writer))
      .send({ 'person[first_name]': 'Amazing' });
    expect(patched.status).toBe(200);

    const res = await request(t.app).get(`/people/${id}/data`).set(as(manager.token));
    const written = await cli(t.database, ['people', 'export-data', String(id)]);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const fromCli = JSON.parse(written.stdout);
    expect({ ...res.body, exported_at: null }).toEqual({ ...fromCli, exported_at: null });
    expect(res.body.person).toMatchObject({ id, first_name: 'Amazing', erased: false });
    expect(res.body.audit).toEqual([
      expect.objectContaining({ action: 'person.update', field: 'first_name', new_value: 'Amazing' }),
    ]);
    expect(res.body.changes).toEqual([
      expect.objectContaining({ type: 'person.updated', fields: ['first_name'] }),
    ]);
  });
});
