import { AddWebhook } from '../../application/webhooks/add-webhook';
import { defineCommand } from '../command';
import { printLine } from '../write-text';

export const webhooksAdd = defineCommand({
  path: ['webhooks', 'add'],
  summary: 'send changes to a URL, signed with a new secret',
  description: [
    'Subscribes URL to the changes made from now on: each is POSTed as JSON',
    '{"type", "seq", "person_id", "at", "cursor"}, signed by the Standard Webhooks scheme',
    '(headers webhook-id, webhook-timestamp, webhook-signature). Prints the subscription id and',
    'its secret, which is shown only this once: give it to the receiver, which checks the',
    'signature with it. Failed deliveries are retried for 3 days; 410 Gone disables at once.',
    'URL must be http or https without a user name or password; loopback and private',
    'addresses are allowed. Event types: person.created, person.updated, person.erased,',
    'person.removed, person.standing_changed, membership.started, membership.ending,',
    'membership.ended, membership.lapsed (default: all).',
  ].join('\n'),
  options: {
    events: { type: 'string', value: 'TYPE,...', description: 'only these change types (comma-separated)' },
  },
  positionals: [{ name: 'URL' }],
  async run({ io, values, positionals: [url], container }) {
    const events =
      typeof values.events === 'string'
        ? values.events
            .split(',')
            .map((type) => type.trim())
            .filter((type) => type !== '')
        : null;
    const { subscription, secret } = await container.get(AddWebhook).execute({ url, events });
    printLine(io.stdout, `id: ${subscription.id}`);
    printLine(io.stdout, `url: ${subscription.url}`);
    printLine(io.stdout, `events: ${subscription.events?.join(',') ?? 'all'}`);
    printLine(io.stdout, `secret: ${secret}`);
    printLine(io.stderr, 'The secret is shown only now: store it with the receiver.');
  },
});
