import request from 'supertest';
import { ChangePassword } from '../../../src/application/accounts/change-password';
import { CreateAccount } from '../../../src/application/accounts/create-account';
import { SetAccountDisabled } from '../../../src/application/accounts/set-account-disabled';
import { GrantPermission } from '../../../src/application/accounts/grant-permission';
import type { AuditLog } from '../../../src/application/ports/audit-log';
import { TYPES } from '../../../src/application/ports/tokens';
import type { ChangeType } from '../../../src/application/ports/change-log';
import type { PersonUpdate, Transaction, UnitOfWork } from '../../../src/application/ports/unit-of-work';
import type { AuditEntry } from '../../../src/domain/audit-entry';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/**
 * The real unit of work, except that while `failing` is set every transaction fails after its
 * work has run, as a commit that the database refuses would: whatever the work wrote must vanish.
 * A person's update, one statement, fails at its last write (the change, of a type the database
 * refuses), after the person and the audit entries were written.
 */
class FailingAfterWork implements UnitOfWork {
  failing = false;

  constructor(private readonly real: UnitOfWork) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.real.run(async (tx) => {
      const result = await work(tx);
      if (this.failing) throw new Error('the commit was refused (test)');
      return result;
    });
  }

  commitPersonUpdate(update: PersonUpdate) {
    if (!this.failing) return this.real.commitPersonUpdate(update);
    return this.real.commitPersonUpdate({
      ...update,
      change: { ...update.change, type: 'refused.by.the.database' as ChangeType },
    });
  }
}

describe.each(testDatabases)('the audit log on $name', (target) => {
  let t: TestApp;
  let unitOfWork: FailingAfterWork;

  beforeAll(async () => {
    t = await createTestApp(target, {
      // Before any use case is resolved, so that every one of them gets this unit of work.
      prepare: (container) => {
        unitOfWork = new FailingAfterWork(container.get<UnitOfWork>(TYPES.UnitOfWork));
        container.rebind<UnitOfWork>(TYPES.UnitOfWork).toConstantValue(unitOfWork);
      },
    });
  });
  afterEach(() => {
    unitOfWork.failing = false;
  });
  afterAll(() => t.close());

  const entriesAbout = async (subjectType: string, subjectId: number): Promise<AuditEntry[]> =>
    (await t.container.get<AuditLog>(TYPES.AuditLog).list({ personId: subjectId, limit: 1000 }))
      .filter((entry) => entry.subjectType === subjectType && entry.subjectId === subjectId)
      .sort((a, b) => a.id - b.id);

  /** An account with a key; the key's id as GET /keys tells it. */
  async function keyHolder(permissions: ('read' | 'write')[] = ['read', 'write']) {
    const account = await t.createAccount({ permissions });
    const token = await t.issueToken(account.username, account.password);
    const keys = await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`);
    return { ...account, token, keyId: keys.body[0].id as number };
  }

  describe('records who, what and when', () => {
    it('for a PATCH: the account and key, each changed field with old and new value, the time', async () => {
      const holder = await keyHolder();
      const [id] = await t.addPeople([newPerson({ firstName: 'Old', lastName: 'Kept', chatId: null })]);
      const before = Date.now();
      const res = await request(t.app)
        .patch(`/people/${id}`)
        .set('Authorization', `Bearer ${holder.token}`)
        .send({ 'person[first_name]': 'New', 'person[last_name]': 'Kept', 'person[chat_id]': 'chat-new' });
      const after = Date.now();
      expect(res.status).toBe(200);

      const entries = await entriesAbout('person', id);
      expect(entries.map((e) => [e.field, e.oldValue, e.newValue])).toEqual([
        ['first_name', 'Old', 'New'],
        ['chat_id', null, 'chat-new'],
      ]);
      for (const entry of entries) {
        expect(entry).toMatchObject({
          actorAccountId: holder.personId,
          actorKeyId: holder.keyId,
          action: 'person.update',
        });
        expect(entry.at.getTime()).toBeGreaterThanOrEqual(before - 1000);
        expect(entry.at.getTime()).toBeLessThanOrEqual(after + 1000);
      }
    });

    it('for issuing a key over POST /keys, and for revoking one over DELETE /keys/:id', async () => {
      const holder = await keyHolder();
      const issued = await request(t.app)
        .post('/keys')
        .set('Authorization', basic(holder.username, holder.password))
        .send({ name: 'second' });
      expect(issued.status).toBe(201);
      expect(await entriesAbout('api_key', issued.body.id)).toEqual([
        expect.objectContaining({ actorAccountId: holder.personId, action: 'key.issue', field: null }),
      ]);

      const revoked = await request(t.app)
        .delete(`/keys/${issued.body.id}`)
        .set('Authorization', `Bearer ${holder.token}`);
      expect(revoked.status).toBe(200);
      expect((await entriesAbout('api_key', issued.body.id)).map((e) => [e.action, e.actorKeyId])).toEqual([
        ['key.issue', null],
        ['key.revoke', holder.keyId],
      ]);
    });

    it('for account changes made from the command line, as made by the operator', async () => {
      const username = uniqueName('operated');
      const { personId } = await t.container.get(CreateAccount).execute({
        username,
        password: 'a long password',
        permissions: ['read'],
        firstName: 'Operated',
        lastName: 'Account',
      });
      await t.container.get(GrantPermission).execute({ username, permissions: ['write'] });
      await t.container.get(ChangePassword).execute({ username, password: 'another long password' });
      await t.container.get(SetAccountDisabled).execute({ username, disabled: true });

      const entries = await entriesAbout('account', personId);
      expect(entries.map((e) => [e.action, e.field, e.oldValue, e.newValue])).toEqual([
        ['account.create', 'username', null, username],
        ['account.create', 'role', null, 'member'],
        ['account.create', 'permissions', null, 'read'],
        ['account.grant', 'permissions', 'read', 'read,write'],
        ['account.password', 'password', null, null],
        ['account.disable', 'disabled', 'false', 'true'],
      ]);
      for (const entry of entries) expect(entry).toMatchObject({ actorAccountId: null, actorKeyId: null });
    });
  });

  describe('a refused change leaves no entry', () => {
    it.each([
      ['409, chat_id taken', (taken: string) => ({ first_name: 'Nope', chat_id: taken }), {}, 409],
      ['412, stale If-Match', () => ({ first_name: 'Nope' }), { 'If-Match': '"v7-20260101"' }, 412],
      ['400, bad value', () => ({ first_name: 'Nope', last_name: '' }), {}, 400],
    ])('a PATCH answered %s changes nothing and writes nothing', async (_title, body, headers, status) => {
      const holder = await keyHolder();
      const taken = uniqueName('taken');
      const [id] = await t.addPeople([newPerson({ firstName: 'Unchanged' })]);
      await t.addPeople([newPerson({ chatId: taken })]);
      const res = await request(t.app)
        .patch(`/people/${id}`)
        .set('Authorization', `Bearer ${holder.token}`)
        .set(headers)
        .send({ person: body(taken) });
      expect(res.status).toBe(status);
      expect(await entriesAbout('person', id)).toEqual([]);
      const person = await request(t.app).get(`/people/${id}`).set('Authorization', `Bearer ${holder.token}`);
      expect(person.body.first_name).toBe('Unchanged');
      expect(person.headers.etag).toMatch(/^"v1-/);
    });
  });

  describe('the entry is written in the same transaction as the change', () => {
    it('a PATCH whose transaction fails keeps neither the change nor its entry, and tells nothing', async () => {
      const holder = await keyHolder();
      const [id] = await t.addPeople([newPerson({ firstName: 'Unchanged' })]);
      unitOfWork.failing = true;
      const res = await request(t.app)
        .patch(`/people/${id}`)
        .set('Authorization', `Bearer ${holder.token}`)
        .send({ person: { first_name: 'Lost' } });
      unitOfWork.failing = false;
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ errors: ['internal server error'] });
      expect(res.text).not.toContain('refused');
      expect(await entriesAbout('person', id)).toEqual([]);
      const [{ first_name, version }] = await t.database.dataSource.query(
        'SELECT first_name, version FROM people WHERE id = $1',
        [id],
      );
      expect({ first_name, version }).toEqual({ first_name: 'Unchanged', version: 1 });
    });

    it('issuing or revoking a key whose transaction fails leaves no key change and no entry', async () => {
      const holder = await keyHolder();
      const count = async (sql: string) =>
        Number((await t.database.dataSource.query(sql, [holder.personId]))[0].count);
      const keysBefore = await count('SELECT count(*)::int AS count FROM api_keys WHERE person_id = $1');
      const entriesBefore = await count(
        'SELECT count(*)::int AS count FROM audit_entries WHERE actor_account_id = $1',
      );

      unitOfWork.failing = true;
      const issued = await request(t.app)
        .post('/keys')
        .set('Authorization', basic(holder.username, holder.password));
      const revoked = await request(t.app).delete('/keys').set('Authorization', `Bearer ${holder.token}`);
      unitOfWork.failing = false;

      expect([issued.status, revoked.status]).toEqual([500, 500]);
      expect(await count('SELECT count(*)::int AS count FROM api_keys WHERE person_id = $1')).toBe(
        keysBefore,
      );
      expect(
        await count('SELECT count(*)::int AS count FROM audit_entries WHERE actor_account_id = $1'),
      ).toBe(entriesBefore);
      // The key whose revocation failed still works.
      expect((await request(t.app).get('/keys').set('Authorization', `Bearer ${holder.token}`)).status).toBe(
        200,
      );
    });

    it('an account change from the command line whose transaction fails leaves no change and no entry', async () => {
      const username = uniqueName('operated');
      const { personId } = await t.container
        .get(CreateAccount)
        .execute({ username, password: 'a long password', permissions: ['read'] });
      const before = await entriesAbout('account', personId);

      unitOfWork.failing = true;
      await expect(
        t.container.get(GrantPermission).execute({ username, permissions: ['write'] }),
      ).rejects.toThrow('refused');
      await expect(t.container.get(SetAccountDisabled).execute({ username, disabled: true })).rejects.toThrow(
        'refused',
      );
      unitOfWork.failing = false;

      expect(await entriesAbout('account', personId)).toEqual(before);
      const [{ permissions, disabled }] = await t.database.dataSource.query(
        'SELECT permissions, disabled FROM people WHERE id = $1',
        [personId],
      );
      expect({ permissions, disabled }).toEqual({ permissions: ['read'], disabled: false });
    });
  });
});
