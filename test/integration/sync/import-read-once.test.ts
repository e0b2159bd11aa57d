import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import request from 'supertest';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { tempFile, tempPath } from '../cli/import-files';
import { exportRecords, type FileRecord, importRecords, snapshot } from './sync-support';

const MEMBERSHIP = { club: 'Kept Club', kind: 'full', start_date: '2020-01-01', end_date: null };

/** SPEC §6: fields a record leaves out are kept; possible duplicates listed; the file read once. */
describe.each(testDatabases)('import keeps what a record leaves out, on $name', (target) => {
  let t: TestApp;
  let bot: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    bot = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  async function addMember(fields: Record<string, unknown> = {}): Promise<FileRecord> {
    const tag = uniqueName('k');
    const first = (fields.first_name as string | undefined) ?? `First${tag}`;
    const result = await importRecords(t.database, [
      {
        first_name: first,
        last_name: `Last${tag}`,
        member_number: uniqueName('N'),
        contacts: [{ kind: 'email', value: `${tag}@example.org`, label: 'home' }],
        memberships: [MEMBERSHIP],
        ...fields,
      },
    ]);
    expect(result.code).toBe(0);
    return (await exportRecords(t.database)).find((r) => r.first_name === first) as FileRecord;
  }

  const person = async (id: number) =>
    (await request(t.app).get(`/people/${id}`).set('Authorization', `Bearer ${bot}`)).body;

  it("keeps the chat bot's chat_id and the planner's planner_id when the roster leaves them out", async () => {
    const member = await addMember({ planner_id: 'planner-7' });
    const chatId = uniqueName('U-GRACE');
    const patched = await request(t.app)
      .patch(`/people/${member.id}`)
      .set('Authorization', `Bearer ${bot}`)
      .send({ 'person[chat_id]': chatId });
    expect(patched.status).toBe(200);
    // The society's own roster: no id, no chat_id, no planner_id.
    const roster = [
      {
        member_number: member.member_number,
        first_name: member.first_name,
        last_name: 'Hopper',
        contacts: member.contacts,
        memberships: member.memberships,
      },
    ];

    const dry = await importRecords(t.database, roster, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`last_name: "${member.last_name}" -> "Hopper"`);
    expect(dry.stdout).not.toContain('chat_id');
    expect(dry.stdout).not.toContain('planner_id');

    const result = await importRecords(t.database, roster);
    expect(result.stdout).toMatch(/: 0 added, 1 updated, 0 unchanged/);
    expect(await person(member.id as number)).toMatchObject({
      last_name: 'Hopper',
      chat_id: chatId,
      planner_id: 'planner-7',
    });
  });

  it('keeps contacts and memberships left out, clears a field given as null', async () => {
    const member = await addMember({ chat_id: uniqueName('c'), planner_id: 'p-2' });
    const before = await person(member.id as number);

    const result = await importRecords(t.database, [{ id: member.id, chat_id: null }]);
    expect(result.stderr).toBe('');

    expect(result.stdout).toMatch(/: 0 added, 1 updated, 0 unchanged/);
    const after = await person(member.id as number);
    expect(after).toEqual({ ...before, chat_id: null });
  });

  it('refuses a record that adds someone without their names, and a chat_id its holder keeps', async () => {
    const holder = await addMember({ chat_id: uniqueName('c') });
    const before = await snapshot(t.database);
    const result = await importRecords(t.database, [
      { member_number: uniqueName('N'), last_name: 'Only' },
      { id: holder.id, first_name: 'Same' },
      { first_name: 'New', last_name: 'Person', chat_id: holder.chat_id },
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('record 0: first_name is required');
    expect(result.stderr).toContain(
      `record 2: chat_id "${holder.chat_id}" is already used by person ${holder.id}, whom record 1 names without changing it`,
    );
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('lists a person added with the email, or both names, of a member as a possible duplicate, and adds them', async () => {
    const tag = uniqueName('dup');
    const byEmail = await addMember({
      contacts: [{ kind: 'email', value: `Straße.${tag}@Example.org`, label: null }],
    });
    const byNames = await addMember({ first_name: `Σίσυφος${tag}`, last_name: 'Ödön' });
    const records = [
      {
        first_name: 'Other',
        last_name: 'Name',
        contacts: [{ kind: 'email', value: `STRASSE.${tag.toUpperCase()}@EXAMPLE.ORG`, label: null }],
      },
      { first_name: `ΣΊΣΥΦΟΣ${tag.toUpperCase()}`, last_name: 'ÖDÖN' },
      { first_name: 'Nobody', last_name: uniqueName('Like') },
    ];

    const dry = await importRecords(t.database, records, '--dry-run');
    expect(dry.stdout).toContain(
      `record 0: possible duplicate of person ${byEmail.id} (${byEmail.first_name} ${byEmail.last_name}): same email`,
    );
    expect(dry.stdout).toContain(
      `record 1: possible duplicate of person ${byNames.id} (${byNames.first_name} ${byNames.last_name}): same names`,
    );
    expect(dry.stdout).not.toContain('record 2: possible duplicate');
    expect(dry.stdout).toMatch(/3 to add, .*; 2 possible duplicates \(listed above\); nothing was written/);

    const result = await importRecords(t.database, records);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`record 0: possible duplicate of person ${byEmail.id} `);
    expect(result.stdout).toMatch(/: 3 added, 0 updated, 0 unchanged, 0 erased; 2 possible duplicates/);
  });

  it('does not take an admin or an erased person for a duplicate', async () => {
    const tag = uniqueName('adm');
    await importRecords(t.database, [{ first_name: 'Admin', last_name: tag, role: 'admin' }]);
    const gone = await addMember({ first_name: 'Gone', last_name: `${tag}g` });
    expect((await cli(t.database, ['people', 'erase', String(gone.id), '--yes'])).code).toBe(0);
    const dry = await importRecords(
      t.database,
      [
        { first_name: 'Admin', last_name: tag },
        { first_name: 'Gone', last_name: `${tag}g` },
      ],
      '--dry-run',
    );
    expect(dry.stdout).not.toContain('possible duplicate');
  });

  it('refuses a record larger than 1 MiB by its index, and imports nothing', async () => {
    const before = await snapshot(t.database);
    const path = tempFile([
      { first_name: 'Fine', last_name: uniqueName('L') },
      { first_name: 'Huge', last_name: 'x', planner_id: 'y'.repeat(1024 * 1024) },
    ]);
    const result = await cli(t.database, ['import', path]);
    expect(result.stderr).toBe(
      `error: 1 problem in ${path}; nothing was imported\n  record 1: is larger than 1 MiB, the most one record may take\n`,
    );
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('reads a pipe once: what a second opening would serve is never written', async () => {
    const fifo = tempPath('roster.json');
    execFileSync('mkfifo', [fifo]);
    const member = JSON.stringify([{ first_name: 'Piped', last_name: uniqueName('Member') }]);
    const admin = JSON.stringify([
      { first_name: 'Piped', last_name: 'Member' },
      { first_name: 'Sneaked', last_name: 'Admin', role: 'admin' },
      { first_name: 'Third', last_name: 'Person' },
    ]);
    // Serves the member to the first reader and the admin to any later one.
    const writer: ChildProcess = spawn(
      'sh',
      ['-c', 'printf %s "$1" > "$3"; sleep 1; printf %s "$2" > "$3"', 'sh', member, admin, fifo],
      {
        stdio: 'ignore',
      },
    );
    try {
      const result = await cli(t.database, ['import', fifo]);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/: 1 added, 0 updated, 0 unchanged, 0 erased/);
      const [{ count }] = await t.database.dataSource.query(
        "SELECT count(*)::int AS count FROM people WHERE first_name = 'Sneaked'",
      );
      expect(count).toBe(0);
    } finally {
      writer.kill();
    }
  });
});
