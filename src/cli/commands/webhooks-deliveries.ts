import { ListWebhookDeliveries } from '../../application/webhooks/list-webhook-deliveries';
import type { WebhookAttempt, WebhookDelivery } from '../../application/ports/webhook-store';
import { defineIdCommand } from '../command';
import { parsePositiveInteger } from '../parse-values';
import { printList } from '../print-list';

/** `disabled`: its subscription is, so a pending delivery waits for `webhooks enable`, not a retry. */
function describe(delivery: WebhookDelivery, disabled: boolean): string {
  const when =
    delivery.status === 'delivered'
      ? `delivered ${delivery.deliveredAt?.toISOString()}`
      : delivery.status === 'pending'
        ? disabled
          ? `pending, waiting for: webhooks enable ${delivery.subscriptionId}`
          : `pending, next attempt ${delivery.nextAttemptAt?.toISOString()}`
        : 'failed';
  return `${delivery.id}  seq ${delivery.seq}  ${delivery.type}  ${delivery.messageId}  ${when}  (${delivery.attempts} attempts)`;
}

function describeAttempt(attempt: WebhookAttempt): string {
  const status = attempt.statusCode === null ? '-' : String(attempt.statusCode);
  return `    ${attempt.at.toISOString()}  ${status}  ${attempt.durationMs} ms${attempt.error ? `  ${attempt.error}` : ''}`;
}

export const webhooksDeliveries = defineIdCommand({
  path: ['webhooks', 'deliveries'],
  summary: "show a subscription's deliveries and every attempt, newest first",
  description: [
    'Shows the deliveries of webhook subscription ID, newest first: delivery id, change seq,',
    'type, webhook-id and status, then each attempt (time, HTTP status, duration, error).',
    'Send one again with: webhooks redeliver DELIVERY_ID',
  ].join('\n'),
  options: {
    failed: { type: 'boolean', description: 'only deliveries that failed (given up, or being retried)' },
    limit: { type: 'string', value: 'N', description: 'at most N deliveries (default 50)' },
    json: { type: 'boolean', description: 'print a JSON array instead of lines' },
  },
  async run({ name, io, values, container }, subscriptionId) {
    const limit = typeof values.limit === 'string' ? parsePositiveInteger(values.limit, '--limit', name) : 50;
    const { subscription, deliveries } = await container
      .get(ListWebhookDeliveries)
      .execute({ subscriptionId, failedOnly: values.failed === true, limit });
    const disabled = subscription.disabledAt !== null;
    printList(io.stdout, deliveries, values.json === true, {
      json: (d) => ({
        id: d.id,
        subscription_id: d.subscriptionId,
        seq: d.seq,
        type: d.type,
        webhook_id: d.messageId,
        status: d.status,
        attempts: d.attemptLog.map((a) => ({
          at: a.at.toISOString(),
          status: a.statusCode,
          duration_ms: a.durationMs,
          error: a.error,
        })),
        next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
        created_at: d.createdAt.toISOString(),
        delivered_at: d.deliveredAt?.toISOString() ?? null,
      }),
      none: values.failed ? 'no failed deliveries' : 'no deliveries yet',
      text: (listed) =>
        listed
          .flatMap((delivery) => [describe(delivery, disabled), ...delivery.attemptLog.map(describeAttempt)])
          .join('\n'),
    });
  },
});
