import { RotateWebhookSecret } from '../../application/webhooks/rotate-webhook-secret';
import type { Command } from '../command';
import { parsePositiveInteger } from '../parse-values';
import { printLine } from '../write-text';

const NAME = 'webhooks rotate-secret';

export const webhooksRotateSecret: Command = {
  path: ['webhooks', 'rotate-secret'],
  summary: 'give a subscription a new secret; the old one signs too for 24 hours',
  usage: 'ID',
  description: [
    'Gives the webhook subscription ID a new secret, printed once. For 24 hours every delivery',
    'carries two signatures (webhook-signature: "v1,<new> v1,<old>"), so the receiver accepts',
    'deliveries whichever secret it holds while it switches to the new one.',
  ].join('\n'),
  options: {},
  positionals: [{ name: 'ID' }],
  database: 'migrated',
  async run({ io, positionals: [id], container }) {
    const subscriptionId = parsePositiveInteger(id, 'ID', NAME);
    const { secret, previousValidUntil } = await container
      .get(RotateWebhookSecret)
      .execute({ id: subscriptionId });
    printLine(io.stdout, `id: ${subscriptionId}`);
    printLine(io.stdout, `secret: ${secret}`);
    printLine(io.stdout, `old secret signs too until: ${previousValidUntil.toISOString()}`);
    printLine(io.stderr, 'The secret is shown only now: store it with the receiver.');
  },
};
