import { ListWebhooks } from '../../application/webhooks/list-webhooks';
import type { WebhookSubscription } from '../../application/ports/webhook-store';
import { defineCommand } from '../command';
import { formatBehind } from '../format-age';
import { formatTable } from '../format-table';
import { printList } from '../print-list';

function status(subscription: WebhookSubscription, now: Date): string {
  if (subscription.disabledAt !== null) {
    return `disabled ${subscription.disabledAt.toISOString()}: ${subscription.disabledReason}`;
  }
  const until = subscription.previousSecretExpiresAt;
  return until !== null && until > now
    ? `active (old secret signs too until ${until.toISOString()})`
    : 'active';
}

export const webhooksList = defineCommand({
  path: ['webhooks', 'list'],
  summary: 'list the webhook subscriptions',
  description: [
    'Lists every webhook subscription: id, URL, event types, how far behind it is (the changes',
    'not yet delivered to it and the age of the oldest), status. Never a secret.',
  ].join('\n'),
  options: { json: { type: 'boolean', description: 'print a JSON array instead of a table' } },
  async run({ io, values, container }) {
    const now = new Date();
    printList(io.stdout, await container.get(ListWebhooks).execute(), values.json === true, {
      json: (s) => ({
        id: s.id,
        url: s.url,
        events: s.events,
        created_at: s.createdAt.toISOString(),
        disabled_at: s.disabledAt?.toISOString() ?? null,
        disabled_reason: s.disabledReason,
        previous_secret_expires_at: s.previousSecretExpiresAt?.toISOString() ?? null,
        behind: {
          changes: s.behind.changes,
          or_more: s.behind.orMore,
          oldest_at: s.behind.oldestAt?.toISOString() ?? null,
        },
      }),
      none: 'no webhook subscriptions yet; add one with: npm run cli -- webhooks add URL',
      text: (subscriptions) =>
        formatTable(
          ['ID', 'URL', 'EVENTS', 'CREATED', 'BEHIND', 'STATUS'],
          subscriptions.map((s) => [
            String(s.id),
            s.url,
            s.events?.join(',') ?? 'all',
            s.createdAt.toISOString(),
            formatBehind(s.behind, now),
            status(s, now),
          ]),
        ),
    });
  },
});
