import { readFileSync, statSync } from 'node:fs';
import request from 'supertest';
import type { NewMembership } from '../../../src/application/ports/person-repository';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { tempPath } from '../cli/import-files';
import { exportRecords, importRecords, snapshot } from './sync-support';

/** A time written while the command ran: between the milliseconds before and after it. */
function expectWithin(at: Date, started: number, finished: number): void {
  expect(at).toBeInstanceOf(Date);
  expect(at.getTime()).toBeGreaterThanOrEqual(started);
  expect(at.getTime()).toBeLessThanOrEqual(finished);
}

/** SPEC §8: erasure, retention and subject access. */
describe.each(testDatabases)('data protection on $name', (target) => {
  let t: TestApp;
  let writer: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    writer = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  const auth = () => ({ Authorization: `Bearer ${writer}` });
  const row = async (id: number) =>
    (await t.database.dataSource.query('SELECT * FROM people WHERE id = $1', [id]))[0];

  /** A member with contacts, a membership, ids, and a change made through the API (audited). */
  async function addMember(
    memberships: NewMembership[] = [
      { club: 'Erase Club', kind: 'full', startDate: '2019-01-01', endDate: null },
    ],
  ) {
    const tag = uniqueName('e');
    const [id] = await t.addPeople([
      newPerson({
        firstName: `Ada${tag}`,
        lastName: `Lovelace${tag}`,
        chatId: `chat-${tag}`,
        plannerId: `planner-${tag}`,
        memberNumber: `N-${tag}`,
        contacts: [{ kind: 'email', value: `${tag}@example.org`, label: 'home' }],
        memberships,
      }),
    ]);
    const res = await request(t.app)
      .patch(`/people/${id}`)
      .set(auth())
      .send({ 'person[last_name]': `Byron${tag}` });
    expect(res.status).toBe(200);
    return { id, tag };
  }

  it('anonymises in one go, keeps membership periods, redacts the audit and records who erased whom', async () => {
    const { id, tag } = await addMember();

    const started = Date.now();
    const result = await cli(t.database, ['people', 'erase', String(id), '--yes']);
    const finished = Date.now();

    expect(result).toEqual({ code: 0, stdout: `erased person ${id}\n`, stderr: '' });
    const erased = await row(id);
    expect(erased).toMatchObject({
      first_name: 'erased',
      last_name: 'erased',
      first_name_folded: 'erased',
      chat_id: null,
      planner_id: null,
      member_number: null,
    });
    expectWithin(erased.erased_at, started, finished);
    expect(await t.database.dataSource.query('SELECT * FROM contacts WHERE person_id = $1', [id])).toEqual(
      [],
    );
    const memberships = await t.database.dataSource.query(
      'SELECT kind, start_date::text AS start_date, end_date FROM memberships WHERE person_id = $1',
      [id],
    );
    expect(memberships).toEqual([{ kind: 'full', start_date: '2019-01-01', end_date: null }]);
    const audit = await t.database.dataSource.query(
      "SELECT action, actor_account_id, field, old_value, new_value FROM audit_entries WHERE subject_type = 'person' AND subject_id = $1 ORDER BY id",
      [id],
    );
    expect(audit).toEqual([
      {
        action: 'person.update',
        actor_account_id: expect.any(Number),
        field: 'last_name',
        old_value: '[erased]',
        new_value: '[erased]',
      },
      { action: 'person.erase', actor_account_id: null, field: null, old_value: null, new_value: null },
    ]);
    expect(JSON.stringify(await snapshot(t.database))).not.toContain(tag);
    const changes = await t.database.dataSource.query(
      'SELECT type, by_key_id FROM changes WHERE person_id = $1 ORDER BY seq',
      [id],
    );
    expect(changes.at(-1)).toEqual({ type: 'person.erased', by_key_id: null });
  });

  it('makes the person invisible everywhere, like an admin', async () => {
    const { id, tag } = await addMember();
    expect((await cli(t.database, ['people', 'erase', String(id), '--yes'])).code).toBe(0);

    expect((await request(t.app).get(`/people/${id}`).set(auth())).status).toBe(404);
    expect(
      (await request(t.app).patch(`/people/${id}`).set(auth()).send({ 'person[first_name]': 'X' })).status,
    ).toBe(404);
    const all = await request(t.app).get('/people').set(auth());
    expect(all.body.map((p: { id: number }) => p.id)).not.toContain(id);
    const named = await request(t.app).post('/people/search').set(auth()).send({ first_name: 'erased' });
    expect(named.body).toEqual([]);
    const inactive = await request(t.app).get('/people').query({ active: 'yes', limit: 1000 }).set(auth());
    expect(inactive.body.map((p: { id: number }) => p.id)).not.toContain(id);
    expect((await exportRecords(t.database)).map((r) => r.id)).not.toContain(id);
    expect(JSON.stringify(all.body)).not.toContain(tag);
  });

  it('disables an account and revokes its keys, and only with --yes', async () => {
    const holder = await t.createAccount({ role: 'member' });
    const token = await t.issueToken(holder.username, holder.password);
    const before = await snapshot(t.database);

    const refused = await cli(t.database, ['people', 'erase', String(holder.personId)]);

    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: standard input is not a terminal, so erasing cannot be confirmed here: give --yes to erase person ${holder.personId}\n`,
    });
    expect(await snapshot(t.database)).toEqual(before);
    expect((await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`)).status).toBe(200);

    const done = await cli(t.database, ['people', 'erase', String(holder.personId), '--yes'], {
      container: t.container,
    });

    expect(done.stdout).toBe(
      `erased person ${holder.personId} and disabled the account "${holder.username}"\n`,
    );
    expect((await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`)).status).toBe(401);
    expect((await row(holder.personId)).disabled).toBe(true);
    const keys = await t.database.dataSource.query('SELECT revoked_at FROM api_keys WHERE person_id = $1', [
      holder.personId,
    ]);
    expect(keys.every((k: { revoked_at: Date | null }) => k.revoked_at !== null)).toBe(true);
  });

  it('refuses an admin, an unknown id and bad usage, and says when a person was erased before', async () => {
    const admin = await t.createAccount({ role: 'admin' });
    const before = await snapshot(t.database);
    expect(await cli(t.database, ['people', 'erase', String(admin.personId), '--yes'])).toMatchObject({
      code: 1,
      stderr: `error: person ${admin.personId} is an admin; admins are not erased (remove the account's rights instead)\n`,
    });
    expect(await cli(t.database, ['people', 'erase', '999999999'])).toMatchObject({
      code: 1,
      stderr: 'error: no person has the id 999999999\n',
    });
    expect(await snapshot(t.database)).toEqual(before);
    expect((await cli(t.database, ['people', 'erase'])).code).toBe(2);
    expect((await cli(t.database, ['people', 'erase', '1', '--ended-before', '2020-01-01'])).code).toBe(2);
    expect((await cli(t.database, ['people', 'erase', '--ended-before', '2020-13-01'])).code).toBe(2);
    expect((await cli(t.database, ['people', 'erase', '--help'])).stdout).toMatch(
      /^Usage: npm run cli -- people erase /,
    );

    const { id } = await addMember();
    await cli(t.database, ['people', 'erase', String(id), '--yes']);
    expect((await cli(t.database, ['people', 'erase', String(id)])).stdout).toBe(
      `person ${id} was already erased\n`,
    );
  });

  it('--ended-before erases the members whose memberships all ended before the date, not account holders', async () => {
    const ended = (endDate: string) => [{ club: 'Old Club', kind: null, startDate: '2001-01-01', endDate }];
    const left = await addMember(ended('2005-06-30'));
    const leftTwice = await addMember([...ended('2004-01-01'), ...ended('2005-12-31')]);
    const recent = await addMember(ended('2015-06-30'));
    const current = await addMember([
      ...ended('2004-01-01'),
      { club: 'Old Club', kind: null, startDate: '2004-01-02', endDate: null },
    ]);
    const holder = await t.createAccount({ role: 'member' });
    await t.database.dataSource.query(
      "INSERT INTO memberships (person_id, club_id, start_date, end_date) SELECT $1, id, '2001-01-01', '2002-01-01' FROM clubs WHERE name = 'Old Club'",
      [holder.personId],
    );
    const before = await snapshot(t.database);

    const dry = await cli(t.database, ['people', 'erase', '--ended-before', '2006-01-01', '--dry-run']);

    expect(dry.stdout).toContain(`would erase person ${left.id} (`);
    expect(dry.stdout).toContain(`would erase person ${leftTwice.id} (`);
    expect(dry.stdout).not.toContain(`person ${recent.id} `);
    expect(dry.stdout).not.toContain(`person ${current.id} `);
    expect(dry.stdout).not.toContain(`person ${holder.personId} `);
    expect(await snapshot(t.database)).toEqual(before);

    const started = Date.now();
    const done = await cli(t.database, ['people', 'erase', '--ended-before', '2006-01-01']);
    const finished = Date.now();

    expect(done.stdout).toMatch(/erased \d+ members who left before 2006-01-01\n$/);
    expectWithin((await row(left.id)).erased_at, started, finished);
    expectWithin((await row(leftTwice.id)).erased_at, started, finished);
    expect((await row(recent.id)).erased_at).toBeNull();
    expect((await row(current.id)).erased_at).toBeNull();
    expect((await row(holder.personId)).erased_at).toBeNull();
  });

  it('--ended-before never erases a member still in grace, and the dry run lists them kept with their standing', async () => {
    const today = new Date().toISOString().slice(0, 10); // the tool's clock is the real one, in UTC
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
    const ended = (endDate: string) => [{ club: 'Old Club', kind: null, startDate: '2001-01-01', endDate }];
    const inGrace = await addMember(ended(daysAgo(5)));
    const lapsed = await addMember(ended(daysAgo(100)));
    const graced = (argv: string[]) => cli(t.database, argv, { env: { GRACE_DAYS: '30' } });

    const dry = await graced(['people', 'erase', '--ended-before', today, '--dry-run']);
    expect(dry.stdout).toContain(`would erase person ${lapsed.id} (`);
    expect(dry.stdout).toMatch(new RegExp(`^would keep person ${inGrace.id} \\(.*\\): standing grace$`, 'm'));
    expect(dry.stdout).not.toMatch(new RegExp(`would erase person ${inGrace.id} `));

    expect((await graced(['people', 'erase', '--ended-before', today])).code).toBe(0);
    expect((await row(lapsed.id)).erased_at).not.toBeNull();
    expect((await row(inGrace.id)).erased_at).toBeNull();
  });

  it('export-data writes the person, the account, masked keys and the audit about and by them', async () => {
    const holder = await t.createAccount({ role: 'member', permissions: ['read', 'write'] });
    const token = await t.issueToken(holder.username, holder.password);
    const [other] = await t.addPeople([newPerson()]);
    await request(t.app)
      .patch(`/people/${other}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ 'person[first_name]': 'ByHolder' });
    await importRecords(t.database, [
      {
        ...(await exportRecords(t.database)).find((r) => r.id === holder.personId),
        member_number: uniqueName('N'),
      },
    ]);
    const path = tempPath('subject.json');

    const result = await cli(t.database, ['people', 'export-data', String(holder.personId), path], {
      umask: 0o022,
    });

    expect(result.stdout).toBe(`wrote what the directory holds about person ${holder.personId} to ${path}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const data = JSON.parse(readFileSync(path, 'utf8'));
    expect(data.person).toMatchObject({
      id: holder.personId,
      role: 'member',
      erased: false,
      member_number: expect.any(String),
    });
    expect(data.account).toEqual({
      username: holder.username,
      role: 'member',
      permissions: ['read', 'write'],
      disabled: false,
    });
    expect(data.keys).toEqual([
      expect.objectContaining({ token: `${token.slice(0, 8)}…`, revoked_at: null }),
    ]);
    expect(JSON.stringify(data)).not.toContain(token);
    expect(JSON.stringify(data)).not.toMatch(/\$2[aby]\$/);
    expect(data.audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'person.update',
          subject_id: other,
          actor_account_id: holder.personId,
        }),
        expect.objectContaining({
          action: 'person.update',
          subject_id: holder.personId,
          field: 'member_number',
          actor: 'cli',
        }),
      ]),
    );
    expect(data.changes).toEqual([
      expect.objectContaining({ type: 'person.updated', fields: ['member_number'], by: null }),
    ]);
    const stdout = await cli(t.database, ['people', 'export-data', String(holder.personId)]);
    expect(JSON.parse(stdout.stdout).person.id).toBe(holder.personId);
    expect((await cli(t.database, ['people', 'export-data', '999999999'])).stderr).toBe(
      'error: no person has the id 999999999\n',
    );
  });
});
