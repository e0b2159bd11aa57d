import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { type ServedProcess, startService } from '../reliability/served-process';
import { type Receiver, startReceiver } from './receiver';
import { migratedDataDir, serviceBuild } from '../../support/run-artifacts';

const ROOT = join(__dirname, '../../..');
const PASSWORD = 'a long password';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The webhooks commands beside the running service on the embedded database, each its own
 * process as `npm run cli -- webhooks ...` runs it: what the tool records, the service sends.
 */
describe('webhooks commands beside the running service on PGlite', () => {
  let build: Awaited<ReturnType<typeof serviceBuild>>;
  let dataDir: string;
  let service: ServedProcess;
  let receiver: Receiver;

  function tool(args: string[]): Promise<Run> {
    const child = spawn(process.execPath, [join(dirname(build.main), 'cli/main.js'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, BCRYPT_COST: '4', TOOL_PASSWORD: PASSWORD },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdin.end();
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  }

  beforeAll(async () => {
    build = await serviceBuild('webhooks-beside');
    dataDir = await migratedDataDir('hooks-beside-');
    service = await startService(build.main, { DATA_DIR: dataDir });
    receiver = await startReceiver();
  }, 120_000);

  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
    build?.remove();
  });

  it('adds a subscription the service sends to at once, redelivers and rotates through the service', async () => {
    const added = await tool(['webhooks', 'add', receiver.url, '--events', 'person.updated']);
    expect(added.code).toBe(0);
    expect(added.stderr).toMatch(/through the service \(process \d+\)/);
    const secret = /^secret: (whsec_\S+)$/m.exec(added.stdout)?.[1] ?? '';
    const id = /^id: (\d+)$/m.exec(added.stdout)?.[1] ?? '';

    const account = await tool([
      'accounts',
      'create',
      '--username',
      'hooked',
      '--first-name',
      'Hook',
      '--last-name',
      'Holder',
      '--permissions',
      'read,write',
      '--password-env',
      'TOOL_PASSWORD',
    ]);
    expect(account.code).toBe(0);
    // Its person, from the line the tool prints (`accounts list` beside the service is the tool's
    // own test's: test/integration/cli/beside-the-service.test.ts).
    const personId = Number(/\(person (\d+),/.exec(account.stdout)?.[1]);
    const base = `http://127.0.0.1:${service.port}`;
    const key = await fetch(`${base}/keys`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`hooked:${PASSWORD}`).toString('base64')}` },
    });
    const { token } = (await key.json()) as { token: string };
    const sent = Date.now();
    const patched = await fetch(`${base}/people/${personId}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ 'person[first_name]': 'Hooked' }),
    });
    expect(patched.status).toBe(200);

    const [message] = await receiver.waitFor(1);
    expect(message.at - sent).toBeLessThan(1000);
    expect(new Webhook(secret).verify(message.body, message.headers)).toMatchObject({
      type: 'person.updated',
      person_id: personId,
    });

    const deliveries = await tool(['webhooks', 'deliveries', id]);
    expect(deliveries.stdout).toMatch(/^1 {2}seq \d+ {2}person\.updated {2}msg_\w+ {2}delivered /m);
    const redelivered = await tool(['webhooks', 'redeliver', '1']);
    expect(redelivered.code).toBe(0);
    const [, again] = await receiver.waitFor(2);
    expect(again.headers['webhook-id']).toBe(message.headers['webhook-id']);

    const rotated = await tool(['webhooks', 'rotate-secret', id]);
    const fresh = /^secret: (whsec_\S+)$/m.exec(rotated.stdout)?.[1] ?? '';
    expect(await tool(['webhooks', 'redeliver', '1'])).toMatchObject({ code: 0 });
    const [, , third] = await receiver.waitFor(3);
    new Webhook(secret).verify(third.body, third.headers);
    new Webhook(fresh).verify(third.body, third.headers);

    service.child.kill('SIGTERM');
    expect((await service.exited).code).toBe(0);
  }, 120_000);
});
