import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServedProcess, startService } from '../reliability/served-process';
import {
  countPeople,
  embedded,
  get,
  importFile,
  issueKey,
  newDataDir,
  runTool,
  serviceMain,
  sql,
  startTool,
  stop,
  TRAPS,
  url,
  useProcesses,
} from './beside-the-service-processes';

let shared: { dataDir: string; service: ServedProcess } | undefined;

/**
 * One service, with the test traps, for this file's tests: each uses accounts and people of its
 * own. Stopped after the file's last test. (Tests that start, stop or restart a service of their
 * own: beside-the-service-lifecycle.test.ts.)
 */
async function sharedService(): Promise<{ dataDir: string; service: ServedProcess }> {
  if (shared === undefined) {
    const dataDir = await newDataDir('beside-shared-');
    shared = { dataDir, service: await startService(serviceMain(), { DATA_DIR: dataDir }) };
    await sql(dataDir, TRAPS);
  }
  return shared;
}

/** An account made with the tool, and a key of it from the service. */
async function keyHolder(service: ServedProcess, dataDir: string, username: string): Promise<string> {
  const created = await runTool(
    [
      'accounts',
      'create',
      '--username',
      username,
      '--permissions',
      'read,write',
      '--password-env',
      'TOOL_PASSWORD',
    ],
    { dataDir },
  );
  expect(created.code).toBe(0);
  const key = await issueKey(service, username);
  expect(key.status).toBe(201);
  return ((await key.json()) as { token: string }).token;
}

(embedded ? describe : describe.skip)('the command-line tool through the running service', () => {
  useProcesses(async () => {
    if (shared !== undefined) expect(await stop(shared.service)).toBe(0);
  });

  it("shows an account disabled or enabled, and a permission revoked, on the service's very next request", async () => {
    const { dataDir, service } = await sharedService();
    const token = await keyHolder(service, dataDir, 'bot');

    // Each change shows on the request sent the moment the tool reports it, while requests
    // before it keep the service's cache of the key warm.
    const nextAnswerAfter = async (args: string[], printed: string): Promise<number> => {
      const run = startTool(args, { dataDir });
      let status = 0;
      while (status === 0) {
        if (run.stdout().includes(printed)) status = (await get(service, '/people?limit=1', token)).status;
        else {
          // Before the change, or already after it: the tool prints once it has committed.
          await get(service, '/people?limit=1', token);
          await sleep(20);
        }
      }
      expect((await run.done).code).toBe(0);
      return status;
    };
    expect((await get(service, '/people?limit=1', token)).status).toBe(200);
    expect(await nextAnswerAfter(['accounts', 'disable', 'bot'], 'disabled')).toBe(401);
    expect(await nextAnswerAfter(['accounts', 'enable', 'bot'], 'enabled')).toBe(200);
    // Without the permission it needs, the key is refused with 401 (SPEC §3).
    expect(await nextAnswerAfter(['accounts', 'revoke', 'bot', 'read'], 'revoked')).toBe(401);
  }, 120_000);

  it('syncs and erases through the service, whose next answers show it', async () => {
    const { dataDir, service } = await sharedService();
    const token = await keyHolder(service, dataDir, 'secretary');
    const loaded = await runTool(['import', importFile(dataDir, 'sync', 3)], { dataDir });
    expect(loaded.stdout).toMatch(/: 3 added, 0 updated, 0 unchanged, 0 erased/);
    const exported = join(dataDir, 'roster.json');
    expect((await runTool(['export', exported], { dataDir })).code).toBe(0);
    const roster = (
      JSON.parse(readFileSync(exported, 'utf8')) as { id: number; role: string; last_name: string }[]
    ).filter((r) => r.role === 'member' && r.last_name.startsWith('Lastsyncx'));
    const [first, second, third] = roster;
    const edited = join(dataDir, 'edited.json');
    writeFileSync(edited, JSON.stringify([{ ...first, last_name: 'Renamed' }, second, third]));

    const dry = await runTool(['import', edited, '--dry-run'], { dataDir });
    expect(dry.stdout).toContain(`person ${first.id}: last_name: "${first.last_name}" -> "Renamed"`);
    expect(await countPeople(service, token, 'Renamed')).toBe(0);
    const synced = await runTool(['import', edited], { dataDir });
    expect(synced.stdout).toMatch(/: 0 added, 1 updated, 2 unchanged, 0 erased/);
    expect(await countPeople(service, token, 'Renamed')).toBe(1);

    const erased = await runTool(['people', 'erase', String(second.id), '--yes'], { dataDir });
    expect(erased).toMatchObject({ code: 0, stdout: `erased person ${second.id}\n` });
    expect((await get(service, `/people/${second.id}`, token)).status).toBe(404);
    const held = await runTool(
      [
        'accounts',
        'create',
        '--username',
        'member3',
        '--person-id',
        String(third.id),
        '--permissions',
        'read',
        '--password-env',
        'TOOL_PASSWORD',
      ],
      { dataDir },
    );
    expect(held.code).toBe(0);
    const memberKey = ((await (await issueKey(service, 'member3')).json()) as { token: string }).token;
    expect((await get(service, '/keys', memberKey)).status).toBe(200);
    expect((await runTool(['people', 'erase', String(third.id), '--yes'], { dataDir })).code).toBe(0);
    expect((await get(service, '/keys', memberKey)).status).toBe(401);
    const data = await runTool(['people', 'export-data', String(third.id)], { dataDir });
    // The account is taken away with the person (SPEC §8): no username or hash is left to show.
    expect(JSON.parse(data.stdout)).toMatchObject({ person: { erased: true }, account: null });
  }, 120_000);

  it('loses no write when HTTP and the tool write at once, and keeps nothing of what the tool rolls back', async () => {
    const { dataDir, service } = await sharedService();
    const token = await keyHolder(service, dataDir, 'writer');
    await runTool(['import', importFile(dataDir, 'seed', 1)], { dataDir });
    const [{ id }] = (await (await get(service, '/people?last_name=LastseedX0', token)).json()) as {
      id: number;
    }[];
    const before = (await get(service, `/people/${id}`, token)).headers.get('etag');

    const imports = Promise.all([
      runTool(['import', importFile(dataDir, 'bulk', 2000)], { dataDir }),
      // Fails in its third batch of a thousand, after writing two.
      runTool(['import', importFile(dataDir, 'failing', 2001, { 2000: 'Explode' })], { dataDir }),
      runTool(['accounts', 'create', '--username', 'late', '--password-env', 'TOOL_PASSWORD'], { dataDir }),
    ]);
    let patched = 0;
    let toolsDone = false;
    void imports.then(() => {
      toolsDone = true;
    });
    while (!toolsDone || patched < 10) {
      const response = await fetch(url(service, `/people/${id}`), {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ person: { first_name: `Patch${patched}` } }),
      });
      expect(response.status).toBe(200);
      patched += 1;
    }
    const [bulk, failing, late] = await imports;

    expect(bulk.code).toBe(0);
    expect(failing).toMatchObject({ code: 1 });
    expect(failing.stderr).toContain('error: the database could not complete the operation');
    expect(late.code).toBe(0);
    // Every PATCH counted once in the person's version, and the last one is what it says.
    const after = await get(service, `/people/${id}`, token);
    const version = (tag: string | null) => Number(/^"v(\d+)-/.exec(tag ?? '')?.[1]);
    expect(version(after.headers.get('etag'))).toBe(version(before) + patched);
    expect(((await after.json()) as { first_name: string }).first_name).toBe(`Patch${patched - 1}`);
    expect(await countPeople(service, token, 'Lastbulk')).toBe(2000);
    expect(await countPeople(service, token, 'Lastfailing')).toBe(0);
    expect((await issueKey(service, 'late')).status).toBe(201);
  }, 180_000);

  it('leaves the service serving, and nothing of its work, when the tool is killed mid-transaction', async () => {
    const { dataDir, service } = await sharedService();
    const token = await keyHolder(service, dataDir, 'reader');

    // Sleepy, in the second batch of a thousand, holds the tool's transaction open for seconds;
    // a request then waits behind it.
    const run = startTool(['import', importFile(dataDir, 'killed', 1001, { 1000: 'Sleepy' })], { dataDir });
    let waiting: Promise<Response> | null = null;
    while (waiting === null) {
      const request = get(service, '/people?limit=1', token);
      const answered = await Promise.race([request.then(() => true), sleep(500).then(() => false)]);
      if (!answered) waiting = request;
      expect(run.child.exitCode).toBeNull();
    }
    run.child.kill('SIGKILL');

    const started = performance.now();
    expect((await waiting).status).toBe(200);
    // The statement running when it was killed ends (the trap's three seconds at most); then its
    // transaction is rolled back and the requests go on.
    expect(performance.now() - started).toBeLessThan(4000);
    expect(await countPeople(service, token, 'Lastkilled')).toBe(0);
    expect((await runTool(['accounts', 'list'], { dataDir })).code).toBe(0);
  }, 120_000);
});
