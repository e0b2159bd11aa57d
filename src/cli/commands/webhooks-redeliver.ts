import { RedeliverWebhook } from '../../application/webhooks/redeliver-webhook';
import type { Command } from '../command';
import { parsePositiveInteger } from '../parse-values';
import { printLine } from '../write-text';

const NAME = 'webhooks redeliver';

export const webhooksRedeliver: Command = {
  path: ['webhooks', 'redeliver'],
  summary: 'send a delivery again',
  usage: 'DELIVERY_ID',
  description: [
    'Sends the delivery DELIVERY_ID (see webhooks deliveries) again as soon as the running',
    'service can, with the same webhook-id, and retries it for another 3 days if it fails.',
  ].join('\n'),
  options: {},
  positionals: [{ name: 'DELIVERY_ID' }],
  database: 'migrated',
  async run({ io, positionals: [id], container }) {
    const deliveryId = parsePositiveInteger(id, 'DELIVERY_ID', NAME);
    const delivery = await container.get(RedeliverWebhook).execute({ deliveryId });
    printLine(io.stdout, `delivery ${delivery.id} (${delivery.messageId}) will be sent again`);
  },
};
