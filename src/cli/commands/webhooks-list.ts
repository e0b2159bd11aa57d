import { ListWebhooks } from '../../application/webhooks/list-webhooks';
import type { WebhookSubscription } from '../../application/ports/webhook-store';
import type { Command } from '../command';
import { formatBehind } from '../format-age';
import { formatTable } from '../format-table';
import { printLine } from '../write-text';

function status(subscription: WebhookSubscription, now: Date): string {
  if (subscription.disabledAt !== null) {
    return `disabled ${subscription.disabledAt.toISOString()}: ${subscription.disabledReason}`;
  }
  const until = subscription.previousSecretExpiresAt;
  return until !== null && until > now
    ? `active (old secret signs too until ${until.toISOString()})`
    : 'active';
}

export const webhooksList: Command = {
  path: ['webhooks', 'list'],
  summary: 'list the webhook subscriptions',
  usage: '[--json]',
  description: [
    'Lists every webhook subscription: id, URL, event types, how far behind it is (the changes',
    'not yet delivered to it and the age of the oldest), status. Never a secret.',
  ].join('\n'),
  options: { json: { type: 'boolean', description: 'print a JSON array instead of a table' } },
  positionals: [],
  database: 'migrated',
  async run({ io, values, container }) {
    const subscriptions = await container.get(ListWebhooks).execute();
    const now = new Date();
    if (values.json) {
      const rows = subscriptions.map((s) => ({
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
      }));
      printLine(io.stdout, JSON.stringify(rows, null, 2));
      return;
    }
    if (subscriptions.length === 0) {
      printLine(io.stdout, 'no webhook subscriptions yet; add one with: npm run cli -- webhooks add URL');
      return;
    }
    const rows = subscriptions.map((s) => [
      String(s.id),
      s.url,
      s.events?.join(',') ?? 'all',
      s.createdAt.toISOString(),
      formatBehind(s.behind, now),
      status(s, now),
    ]);
    printLine(io.stdout, formatTable(['ID', 'URL', 'EVENTS', 'CREATED', 'BEHIND', 'STATUS'], rows));
  },
};
