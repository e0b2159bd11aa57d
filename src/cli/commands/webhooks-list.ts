import { type ListedWebhook, ListWebhooks } from '../../application/webhooks/list-webhooks';
import { defineCommand } from '../command';
import { formatBehind } from '../format-age';
import { formatTable } from '../format-table';
import { printList } from '../print-list';

function state(subscription: ListedWebhook): 'active' | 'disabled' {
  return subscription.disabledAt === null ? 'active' : 'disabled';
}

/** Why it is as it is, and what the operator can do about it; empty when there is nothing to say. */
function note(subscription: ListedWebhook, now: Date): string {
  if (subscription.disabledAt !== null) {
    return `since ${subscription.disabledAt.toISOString()}: ${subscription.disabledReason}; resume with: webhooks enable ${subscription.id}`;
  }
  const until = subscription.previousSecretExpiresAt;
  return until !== null && until > now ? `old secret signs too until ${until.toISOString()}` : '';
}

export const webhooksList = defineCommand({
  path: ['webhooks', 'list'],
  summary: 'list the webhook subscriptions',
  description: [
    'Lists every webhook subscription: id, URL, event types, STATE (active or disabled), WAITING',
    '(how many changes are not yet delivered to it, and the age of the oldest; "up to date" when',
    'none), OLDEST_SEQ (the seq of the oldest waiting change) and a NOTE (why it is disabled and',
    'how to resume it, or a rotation under way). A disabled subscription keeps what waits:',
    '`webhooks enable ID` sends it. Never a secret.',
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
        state: state(s),
        disabled_at: s.disabledAt?.toISOString() ?? null,
        disabled_reason: s.disabledReason,
        previous_secret_expires_at: s.previousSecretExpiresAt?.toISOString() ?? null,
        behind: {
          changes: s.behind.changes,
          or_more: s.behind.orMore,
          oldest_at: s.behind.oldestAt?.toISOString() ?? null,
          oldest_seq: s.behind.oldestSeq,
        },
      }),
      none: 'no webhook subscriptions yet; add one with: npm run cli -- webhooks add URL',
      text: (subscriptions) =>
        formatTable(
          ['ID', 'URL', 'EVENTS', 'CREATED', 'STATE', 'WAITING', 'OLDEST_SEQ', 'NOTE'],
          subscriptions.map((s) => [
            String(s.id),
            s.url,
            s.events?.join(',') ?? 'all',
            s.createdAt.toISOString(),
            state(s),
            formatBehind(s.behind, now),
            s.behind.oldestSeq === null ? '-' : String(s.behind.oldestSeq),
            note(s, now),
          ]),
        ),
    });
  },
});
