import { EnableWebhook } from '../../application/webhooks/enable-webhook';
import { defineIdCommand } from '../command';
import { formatBehind } from '../format-age';
import { printLine } from '../write-text';

export const webhooksEnable = defineIdCommand({
  path: ['webhooks', 'enable'],
  summary: 'send to a disabled subscription again, from where it stopped',
  description: [
    'Enables the webhook subscription ID again (disabled after a 410 Gone or 3 days without',
    'success), with the same id and secret. It resumes from where it stopped: the changes made',
    'while it was disabled are delivered, and so are its deliveries that failed since its last',
    'success, each with a fresh 3 days of retries. Try the receiver first with: webhooks ping ID',
  ].join('\n'),
  async run({ io, container }, subscriptionId) {
    const enabled = await container.get(EnableWebhook).execute({ id: subscriptionId });
    if (!enabled.wasDisabled) {
      printLine(io.stdout, `subscription ${subscriptionId} is already active; nothing changed`);
      return;
    }
    printLine(io.stdout, `subscription ${subscriptionId} enabled`);
    printLine(io.stdout, `failed deliveries sent again: ${enabled.requeued}`);
    printLine(io.stdout, `behind by: ${formatBehind(enabled.behind, new Date())}`);
    if (enabled.changesLost) {
      printLine(
        io.stderr,
        'Some changes made while it was disabled are older than CHANGES_RETENTION_DAYS and are no ' +
          'longer kept: the receiver must list /people again to catch up.',
      );
    }
  },
});
