import request from 'supertest';
import { AddWebhook } from '../../../src/application/webhooks/add-webhook';
import { DeliverWebhooks } from '../../../src/application/webhooks/deliver-webhooks';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { snapshot } from './sync-support';

const PASSWORD = 'a good long password';

/** SPEC §7 and §8, as issue 27 found them broken: accounts, subject access, retention, removal. */
describe.each(testDatabases)('erasure and visibility rules on $name', (target) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target);
  });
  afterAll(() => t.close());

  const query = (sql: string, params: unknown[] = []) => t.database.dataSource.query(sql, params);

  it('an erased account keeps no username, password hash or key names, and cannot be enabled again', async () => {
    const holder = await t.createAccount({ role: 'member' });
    const keyName = uniqueName('laptop');
    const token = await t.issueToken(holder.username, holder.password, { name: keyName });

    const erased = await cli(t.database, ['people', 'erase', String(holder.personId), '--yes'], {
      container: t.container,
    });

    expect(erased.code).toBe(0);
    const [row] = await query(
      'SELECT username, password_hash, permissions, disabled FROM people WHERE id = $1',
      [holder.personId],
    );
    expect(row).toEqual({ username: null, password_hash: null, permissions: [], disabled: true });
    const keys = await query('SELECT name, revoked_at FROM api_keys WHERE person_id = $1', [holder.personId]);
    expect(keys).toEqual([{ name: null, revoked_at: expect.any(Date) }]);
    expect(JSON.stringify(await snapshot(t.database))).not.toContain(holder.username);
    expect(JSON.stringify(await snapshot(t.database))).not.toContain(keyName);

    const before = await snapshot(t.database);
    const enable = await cli(t.database, ['accounts', 'enable', holder.username]);
    expect(enable).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: no account with the username ${JSON.stringify(holder.username)}\n`,
    });
    // Nor can new credentials be attached to the erased person.
    const attach = await cli(
      t.database,
      ['accounts', 'create', '--username', uniqueName('again'), '--person-id', String(holder.personId)],
      { stdin: `${PASSWORD}\n` },
    );
    expect(attach).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: person ${holder.personId} was erased; an erased person cannot hold an account\n`,
    });
    expect(await snapshot(t.database)).toEqual(before);
    expect((await request(t.app).get('/people').set('Authorization', `Bearer ${token}`)).status).toBe(401);
    // The store itself refuses credentials on an erased person, whatever path tried it.
    await expect(
      query("UPDATE people SET username = 'x', password_hash = 'y' WHERE id = $1", [holder.personId]),
    ).rejects.toThrow(/people_erased_credentials_check/);
  });

  it('the subject-access export lists what the subject did to others without their values', async () => {
    const holder = await t.createAccount({ role: 'member', permissions: ['read', 'write'] });
    const token = await t.issueToken(holder.username, holder.password);
    const before = uniqueName('Before');
    const after = uniqueName('After');
    const other = await t.addPerson({ firstName: before });
    const patched = await request(t.app)
      .patch(`/people/${other}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ 'person[first_name]': after });
    expect(patched.status).toBe(200);

    const result = await cli(t.database, ['people', 'export-data', String(holder.personId)]);

    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout);
    expect(result.stdout).not.toContain(before);
    expect(result.stdout).not.toContain(after);
    expect(data.audit).toContainEqual(
      expect.objectContaining({
        action: 'person.update',
        subject_type: 'person',
        subject_id: other,
        field: 'first_name',
        actor_account_id: holder.personId,
        old_value: null,
        new_value: null,
      }),
    );
    // Their own account's entries keep their values: those are the subject's own data.
    expect(data.audit).toContainEqual(
      expect.objectContaining({ action: 'key.issue', actor_account_id: holder.personId }),
    );
  });

  it('--ended-before a date after today is refused, dry run or not, and nobody is listed or erased', async () => {
    const current = await t.addPerson({
      memberships: [{ club: 'Now Club', kind: null, startDate: '2020-01-01', endDate: null }],
    });
    const before = await snapshot(t.database);
    const today = new Date().toISOString().slice(0, 10);

    for (const extra of [[], ['--dry-run']]) {
      const result = await cli(t.database, ['people', 'erase', '--ended-before', '2099-01-01', ...extra]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^error: 2099-01-01 is after today \(\d{4}-\d\d-\d\d\): only people who left before a date that has come can be erased\n$/,
      );
    }
    expect(await snapshot(t.database)).toEqual(before);
    expect((await query('SELECT erased_at FROM people WHERE id = $1', [current]))[0].erased_at).toBeNull();
    // Today itself is no later than today.
    expect((await cli(t.database, ['people', 'erase', '--ended-before', today, '--dry-run'])).code).toBe(0);
  });

  it('a member made an admin leaves the feed and webhooks with person.removed, person null', async () => {
    const member = await t.addPerson();
    const reader = await t.tokenWith(['read']);
    const auth = { Authorization: `Bearer ${reader}` };
    const cursor = (await request(t.app).get('/people').query({ limit: 1 }).set(auth)).headers[
      'changes-cursor'
    ];
    await t.container.get(AddWebhook).execute({ url: 'http://127.0.0.1:9/hooks', events: null });

    const made = await cli(
      t.database,
      ['accounts', 'create', '--username', uniqueName('op'), '--person-id', String(member), '--admin'],
      { stdin: `${PASSWORD}\n` },
    );

    expect(made.code).toBe(0);
    expect((await request(t.app).get(`/people/${member}`).set(auth)).status).toBe(404);
    const feed = await request(t.app).get('/changes').query({ after: cursor }).set(auth);
    expect(feed.status).toBe(200);
    expect(feed.body.changes).toEqual([
      expect.objectContaining({ type: 'person.removed', person_id: member, person: null, by: null }),
    ]);
    const [window] = await t.container.get(DeliverWebhooks).claimWindows(10);
    expect(window.changes.map((change) => JSON.parse(change.payload))).toEqual([
      expect.objectContaining({ type: 'person.removed', person_id: member }),
    ]);
    // In the same transaction as the role: no removal without its change, nor the reverse.
    const [change] = await query(
      "SELECT c.at = p.updated_at AS together FROM changes c JOIN people p ON p.id = c.person_id WHERE c.person_id = $1 AND c.type = 'person.removed'",
      [member],
    );
    expect(change.together).toBe(true);

    // An admin made an admin again, or given an account as one from the start, is no removal.
    const [admin] = await t.addPeople([newPerson({ role: 'admin' })]);
    await cli(
      t.database,
      ['accounts', 'create', '--username', uniqueName('op'), '--person-id', String(admin), '--admin'],
      { stdin: `${PASSWORD}\n` },
    );
    expect(await query('SELECT type FROM changes WHERE person_id = $1', [admin])).toEqual([]);
  });
});
