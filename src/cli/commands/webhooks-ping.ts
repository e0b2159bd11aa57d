import { PingWebhook } from '../../application/webhooks/ping-webhook';
import { CliFailure } from '../cli-errors';
import { defineIdCommand } from '../command';
import { printLine } from '../write-text';

export const webhooksPing = defineIdCommand({
  path: ['webhooks', 'ping'],
  summary: "send a signed test delivery to a subscription's receiver, and show its answer",
  description: [
    'POSTs {"type": "webhook.ping", "subscription_id": ID, "at": TIME} once, now, to the receiver',
    'of subscription ID (enabled or not), signed with its secret like every delivery, and prints',
    "the receiver's status and how long it took. Exits 1 unless it answered 2xx within 10 s. Not a",
    'change: nothing is recorded in the feed or among the deliveries, and it is not retried.',
  ].join('\n'),
  async run({ io, container }, subscriptionId) {
    const ping = await container.get(PingWebhook).execute({ id: subscriptionId });
    const answered = ping.statusCode === null ? 'no answer' : `HTTP ${ping.statusCode}`;
    const line = `${ping.url}: ${answered} in ${ping.durationMs} ms (webhook-id ${ping.messageId})`;
    if (ping.error !== null) throw new CliFailure(`${line}: ${ping.error}`);
    printLine(io.stdout, line);
  },
});
