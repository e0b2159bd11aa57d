import 'reflect-metadata';
import type { Container } from 'inversify';
import { AuthenticateKey } from '../../../src/application/keys/authenticate-key';
import { AuthenticateAccount } from '../../../src/application/keys/authenticate-account';
import { IssueKey } from '../../../src/application/keys/issue-key';
import { loadConfig } from '../../../src/config';
import { createContainer } from '../../../src/container';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { newPerson, uniqueName } from '../../support/app';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { addPerson, cli } from './cli-harness';

const PASSWORD = 'a good long password';

// The checks use the tool's own container, as one process has one: its credential cache is the one
// the commands' changes invalidate (the service beside the tool: beside-the-service.test.ts).
describe.each(testDatabases)('accounts commands on $name', (target) => {
  let database: Database;
  let container: Container;

  beforeAll(async () => {
    database = await openTestDatabase(target);
    container = createContainer(loadConfig({ BCRYPT_COST: '4', LOG_LEVEL: 'silent' }), database);
  });
  afterAll(async () => {
    await database.close();
  });

  async function create(username: string, args: string[] = [], stdin = `${PASSWORD}\n`) {
    return cli(database, ['accounts', 'create', '--username', username, ...args], { stdin });
  }

  async function tokenFor(username: string, password = PASSWORD) {
    const account = await container
      .get(AuthenticateAccount)
      .execute({ username, password, clientAddress: 'test' });
    const { token } = await container
      .get(IssueKey)
      .execute({ accountId: account.personId, name: null, permissions: null, expiresInDays: null });
    return token;
  }

  async function listed(username: string) {
    const { stdout } = await cli(database, ['accounts', 'list', '--json']);
    return (JSON.parse(stdout) as { username: string }[]).find((a) => a.username === username);
  }

  it('creates an admin-role account from a password on standard input, without permissions by default', async () => {
    const username = uniqueName('bot');

    const result = await create(username);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`created the account "${username}" \\(person \\d+, role admin, permissions: none\\)`),
    );
    expect(result.stderr).toContain(`accounts grant ${username} read`);
    expect(await listed(username)).toMatchObject({
      role: 'admin',
      permissions: [],
      active_keys: 0,
      disabled: false,
    });
    await expect(tokenFor(username)).resolves.toMatch(/^mdk_/);
  });

  it('creates a member with names and permissions, the password from --password-env', async () => {
    const username = uniqueName('ada');
    const result = await cli(
      database,
      [
        'accounts',
        'create',
        '--username',
        username,
        '--first-name',
        'Ada',
        '--last-name',
        'Byron',
        '--permissions',
        'read,write',
        '--password-env',
        'NEW_PASSWORD',
      ],
      { env: { NEW_PASSWORD: PASSWORD } },
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(await listed(username)).toMatchObject({ role: 'member', permissions: ['read', 'write'] });
  });

  it('attaches credentials to an existing person with --person-id', async () => {
    const id = await addPerson(database, container, newPerson());
    const username = uniqueName('member');

    const result = await create(username, ['--person-id', String(id), '--permissions', 'read']);

    expect(result.code).toBe(0);
    expect(await listed(username)).toMatchObject({ person_id: id, role: 'member', permissions: ['read'] });
    expect((await create(uniqueName('again'), ['--person-id', String(id)])).stderr).toMatch(
      /already has the account/,
    );
    const missing = await create(uniqueName('x'), ['--person-id', '99999999']);
    expect(missing).toMatchObject({ code: 1, stderr: 'error: no person with the id 99999999\n' });
  });

  it('fails with one line and exit 1 on a short or missing password or a taken username', async () => {
    const username = uniqueName('short');
    expect(await create(username, [], 'short\n')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: the password must be at least 8 characters long\n',
    });
    expect(await create(username, [], '')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: no password/),
    });
    expect(await create(username, ['--password-env', 'UNSET_VARIABLE'])).toMatchObject({
      code: 1,
      stderr: 'error: the environment variable UNSET_VARIABLE is not set or is empty\n',
    });
    expect(await listed(username)).toBeUndefined();
    await create(username);
    expect(await create(username)).toMatchObject({
      code: 1,
      stderr: `error: the username "${username}" is already taken\n`,
    });
  });

  it('refuses wrong usage with exit 2 and a hint', async () => {
    expect(await cli(database, ['accounts', 'create', '--first-name', 'A'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --username is required\nsee: npm run cli -- accounts create --help\n',
    });
    const both = await cli(database, [
      'accounts',
      'create',
      '--username',
      'u',
      '--person-id',
      '1',
      '--first-name',
      'A',
      '--last-name',
      'B',
    ]);
    expect(both.code).toBe(2);
    expect((await cli(database, ['accounts', 'grant', 'u', 'admin'])).stderr).toMatch(
      /unknown permission "admin"/,
    );
  });

  it('grants and revokes permissions; a revoked permission leaves existing keys at once', async () => {
    const username = uniqueName('perm');
    await create(username, ['--permissions', 'read']);

    expect(await cli(database, ['accounts', 'grant', username, 'write'], { container })).toMatchObject({
      code: 0,
      stdout: `granted write to "${username}"; its permissions: read,write\n`,
    });
    const token = await tokenFor(username);
    expect((await container.get(AuthenticateKey).execute({ token })).permissions).toEqual(['read', 'write']);

    expect(await cli(database, ['accounts', 'revoke', username, 'write'], { container })).toMatchObject({
      code: 0,
    });
    expect((await container.get(AuthenticateKey).execute({ token })).permissions).toEqual(['read']);
    expect(await listed(username)).toMatchObject({ permissions: ['read'], active_keys: 1 });
    expect((await cli(database, ['accounts', 'revoke', username, 'write'])).stdout).toMatch(
      /nothing changed/,
    );
    expect(await cli(database, ['accounts', 'grant', 'no-such-user', 'read'])).toMatchObject({
      code: 1,
      stderr: 'error: no account with the username "no-such-user"\n',
    });
  });

  it('changes the password: the old one stops working, the new one works', async () => {
    const username = uniqueName('pw');
    await create(username, ['--permissions', 'read']);

    const result = await cli(database, ['accounts', 'password', username], { stdin: 'the new password\n' });

    expect(result).toMatchObject({ code: 0, stdout: `changed the password of "${username}"\n` });
    await expect(tokenFor(username)).rejects.toThrow(/wrong username or password/);
    await expect(tokenFor(username, 'the new password')).resolves.toMatch(/^mdk_/);
  });

  it('disables an account: its existing keys are refused and it cannot get new ones', async () => {
    const username = uniqueName('off');
    await create(username, ['--permissions', 'read']);
    const token = await tokenFor(username);
    await container.get(AuthenticateKey).execute({ token });

    expect(await cli(database, ['accounts', 'disable', username], { container })).toMatchObject({
      code: 0,
      stdout: `disabled "${username}"\n`,
    });

    await expect(container.get(AuthenticateKey).execute({ token })).rejects.toThrow(/disabled/);
    await expect(tokenFor(username)).rejects.toThrow(/^wrong username or password$/);
    expect(await listed(username)).toMatchObject({ disabled: true });
    expect(await cli(database, ['accounts', 'enable', username], { container })).toMatchObject({ code: 0 });
    await expect(container.get(AuthenticateKey).execute({ token })).resolves.toMatchObject({
      permissions: ['read'],
    });
  });

  it('lists accounts as a table and as JSON, never with a password hash', async () => {
    const username = uniqueName('list');
    await create(username, ['--permissions', 'read,write']);
    await tokenFor(username);

    const table = await cli(database, ['accounts', 'list']);
    const json = await cli(database, ['accounts', 'list', '--json']);

    expect(table.stdout.split('\n')[0]).toMatch(/^USERNAME\s+ROLE\s+PERMISSIONS\s+KEYS\s+STATUS\s+PERSON$/);
    expect(table.stdout).toMatch(new RegExp(`${username}\\s+admin\\s+read,write\\s+1\\s+active`));
    expect(Object.keys(JSON.parse(json.stdout)[0]).sort()).toEqual([
      'active_keys',
      'disabled',
      'permissions',
      'person_id',
      'role',
      'username',
    ]);
    for (const output of [table.stdout, json.stdout]) expect(output).not.toMatch(/\$2[aby]\$/);
  });

  it('writes every account change to the audit log as made by the command line (cli), and audit shows it', async () => {
    const username = uniqueName('audited');
    const created = await create(username, ['--permissions', 'read']);
    const personId = Number(/person (\d+)/.exec(created.stdout)?.[1]);
    await cli(database, ['accounts', 'grant', username, 'write']);
    await cli(database, ['accounts', 'password', username], { stdin: 'another password\n' });
    await cli(database, ['accounts', 'disable', username]);

    const json = await cli(database, ['audit', '--person', String(personId), '--json']);
    const lines = await cli(database, ['audit', '--person', String(personId)]);

    expect(json.code).toBe(0);
    const entries = JSON.parse(json.stdout) as Record<string, unknown>[];
    const changes = entries.map((e) => [e.action, e.field, e.old_value, e.new_value]);
    expect(changes.slice(0, 3)).toEqual([
      ['account.disable', 'disabled', 'false', 'true'],
      ['account.password', 'password', null, null],
      ['account.grant', 'permissions', 'read', 'read,write'],
    ]);
    // The three entries of the creation share one moment; their order among themselves is free.
    expect(changes.slice(3)).toEqual(
      expect.arrayContaining([
        ['account.create', 'permissions', null, 'read'],
        ['account.create', 'role', null, 'admin'],
        ['account.create', 'username', null, username],
      ]),
    );
    expect(changes).toHaveLength(6);
    expect(entries.every((e) => e.actor_account_id === null && e.subject_id === personId)).toBe(true);
    expect(lines.stdout.split('\n')[0]).toMatch(
      /^\S+Z {2}cli {2}account\.disable {2}account \d+ {2}disabled: "false" -> "true"$/,
    );
    expect(lines.stdout + json.stdout).not.toContain('another password');
  });

  it('filters the audit log by --since and --limit, and refuses a bad date with exit 2', async () => {
    const username = uniqueName('since');
    await create(username);

    const future = await cli(database, ['audit', '--since', '2999-01-01']);
    const one = await cli(database, ['audit', '--limit', '1', '--json']);

    expect(future).toMatchObject({ code: 0, stdout: 'no audit entries\n' });
    expect(JSON.parse(one.stdout)).toHaveLength(1);
    expect((await cli(database, ['audit', '--since', 'last week'])).code).toBe(2);
    expect((await cli(database, ['audit', '--limit', '0'])).code).toBe(2);
  });
});
