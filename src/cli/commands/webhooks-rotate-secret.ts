import { RotateWebhookSecret } from '../../application/webhooks/rotate-webhook-secret';
import { defineIdCommand } from '../command';
import { printLine } from '../write-text';

export const webhooksRotateSecret = defineIdCommand({
  path: ['webhooks', 'rotate-secret'],
  summary: 'give a subscription a new secret; the old one signs too for 24 hours',
  description: [
    'Gives the webhook subscription ID a new secret, printed once. For 24 hours every delivery',
    'carries two signatures (webhook-signature: "v1,<new> v1,<old>"), so the receiver accepts',
    'deliveries whichever secret it holds while it switches to the new one.',
  ].join('\n'),
  async run({ io, container }, subscriptionId) {
    const { secret, previousValidUntil } = await container
      .get(RotateWebhookSecret)
      .execute({ id: subscriptionId });
    printLine(io.stdout, `id: ${subscriptionId}`);
    printLine(io.stdout, `secret: ${secret}`);
    printLine(io.stdout, `old secret signs too until: ${previousValidUntil.toISOString()}`);
    printLine(io.stderr, 'The secret is shown only now: store it with the receiver.');
  },
});
