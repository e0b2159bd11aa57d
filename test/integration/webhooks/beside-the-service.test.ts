import { Webhook } from 'standardwebhooks';
import {
  issueKey,
  newDataDir,
  runTool,
  serviceMain,
  url,
  useProcesses,
} from '../cli/beside-the-service-processes';
import { type ServedProcess, startService } from '../reliability/served-process';
import { type Receiver, startReceiver } from './receiver';

/**
 * The webhooks commands beside the running service on the embedded database, each its own
 * process as `npm run cli -- webhooks ...` runs it: what the tool records, the service sends.
 */
describe('webhooks commands beside the running service on PGlite', () => {
  let dataDir: string;
  let service: ServedProcess;
  let receiver: Receiver;

  const tool = (args: string[]) => runTool(args, { dataDir });

  useProcesses(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
    await receiver?.close();
  });

  beforeAll(async () => {
    dataDir = await newDataDir('hooks-beside-');
    service = await startService(serviceMain(), { DATA_DIR: dataDir });
    receiver = await startReceiver();
  }, 120_000);

  it('adds a subscription the running service sends to, redelivers and rotates through the service', async () => {
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
    const { token } = (await (await issueKey(service, 'hooked')).json()) as { token: string };
    const patched = await fetch(url(service, `/people/${personId}`), {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ 'person[first_name]': 'Hooked' }),
    });
    expect(patched.status).toBe(200);

    // Sent by the service as it runs, with no restart; how soon is the bench's to measure
    // (`npm run bench -- webhooks`), not a test's.
    const [message] = await receiver.waitFor(1);
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
