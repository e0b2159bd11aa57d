import { EnableWebhook } from '../../application/webhooks/enable-webhook';
import { defineIdCommand } from '../command';
import { formatBehind } from '../format-age';
import { printLine } from '../write-text';

export const webhooksEnable = defineIdCommand({
  path: ['webhooks', 'enable'],
  summary: 'send to a disabled subscription again, from where it stopped',
  description: [
    'Enables the webhook subscription ID again (disabled after a 410 Gone, 3 days without',
    'success, or a restore), with the same id and secret. It resumes from where it stopped: every',
    'change that waited for it is delivered, oldest first (those pending when it was disabled,',
    'each with a fresh 3 days of retries, then those made since), and it follows on. Try the',
    'receiver first with: webhooks ping ID',
  ].join('\n'),
  async run({ io, container }, subscriptionId) {
    const enabled = await container.get(EnableWebhook).execute({ id: subscriptionId });
    if (!enabled.wasDisabled) {
      printLine(io.stdout, `subscription ${subscriptionId} is already active; nothing changed`);
      return;
    }
    printLine(io.stdout, `subscription ${subscriptionId} enabled`);
    const { behind } = enabled;
    printLine(
      io.stdout,
      behind.oldestSeq === null
        ? 'nothing waited for it: it follows on from the next change'
        : `sending what waited, oldest first, from seq ${behind.oldestSeq}: ${formatBehind(behind, new Date())}`,
    );
    if (enabled.changesLost) {
      printLine(
        io.stderr,
        'Some changes made while it was disabled are older than CHANGES_RETENTION_DAYS and are no ' +
          'longer kept: the receiver must list /people again to catch up.',
      );
    }
  },
});
