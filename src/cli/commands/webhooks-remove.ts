import { RemoveWebhook } from '../../application/webhooks/remove-webhook';
import { defineIdCommand } from '../command';
import { printLine } from '../write-text';

export const webhooksRemove = defineIdCommand({
  path: ['webhooks', 'remove'],
  summary: 'stop sending to a subscription, and forget its deliveries',
  description: 'Removes the webhook subscription ID with its deliveries and their attempts.',
  async run({ io, container }, subscriptionId) {
    await container.get(RemoveWebhook).execute({ id: subscriptionId });
    printLine(io.stdout, `removed webhook subscription ${subscriptionId}`);
  },
});
