import { RemoveWebhook } from '../../application/webhooks/remove-webhook';
import type { Command } from '../command';
import { parsePositiveInteger } from '../parse-values';
import { printLine } from '../write-text';

const NAME = 'webhooks remove';

export const webhooksRemove: Command = {
  path: ['webhooks', 'remove'],
  summary: 'stop sending to a subscription, and forget its deliveries',
  usage: 'ID',
  description: 'Removes the webhook subscription ID with its deliveries and their attempts.',
  options: {},
  positionals: [{ name: 'ID' }],
  database: 'migrated',
  async run({ io, positionals: [id], container }) {
    const subscriptionId = parsePositiveInteger(id, 'ID', NAME);
    await container.get(RemoveWebhook).execute({ id: subscriptionId });
    printLine(io.stdout, `removed webhook subscription ${subscriptionId}`);
  },
};
