import { RedeliverWebhook } from '../../application/webhooks/redeliver-webhook';
import { defineIdCommand } from '../command';
import { printLine } from '../write-text';

export const webhooksRedeliver = defineIdCommand({
  path: ['webhooks', 'redeliver'],
  summary: 'send a delivery again',
  description: [
    'Sends the delivery DELIVERY_ID (see webhooks deliveries) again as soon as the running',
    'service can, with the same webhook-id, and retries it for another 3 days if it fails.',
  ].join('\n'),
  id: 'DELIVERY_ID',
  async run({ io, container }, deliveryId) {
    const delivery = await container.get(RedeliverWebhook).execute({ deliveryId });
    printLine(io.stdout, `delivery ${delivery.id} (${delivery.messageId}) will be sent again`);
  },
});
