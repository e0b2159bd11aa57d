import type { Command } from './command';
import { accountsCreate } from './commands/accounts-create';
import { accountsDisable } from './commands/accounts-disable';
import { accountsEnable } from './commands/accounts-enable';
import { accountsGrant } from './commands/accounts-grant';
import { accountsList } from './commands/accounts-list';
import { accountsPassword } from './commands/accounts-password';
import { accountsRevoke } from './commands/accounts-revoke';
import { auditCommand } from './commands/audit';
import { backupCommand } from './commands/backup';
import { demoCommand } from './commands/demo';
import { exportCommand } from './commands/export';
import { importCommand } from './commands/import';
import { migrateCommand } from './commands/migrate';
import { peopleErase } from './commands/people-erase';
import { peopleExportData } from './commands/people-export-data';
import { peopleFind } from './commands/people-find';
import { restoreCommand } from './commands/restore';
import { webhooksAdd } from './commands/webhooks-add';
import { webhooksDeliveries } from './commands/webhooks-deliveries';
import { webhooksEnable } from './commands/webhooks-enable';
import { webhooksList } from './commands/webhooks-list';
import { webhooksPing } from './commands/webhooks-ping';
import { webhooksRedeliver } from './commands/webhooks-redeliver';
import { webhooksRemove } from './commands/webhooks-remove';
import { webhooksRotateSecret } from './commands/webhooks-rotate-secret';

/** Every command of the tool, in the order the help lists them. */
export const COMMANDS: Command[] = [
  accountsCreate,
  accountsGrant,
  accountsRevoke,
  accountsPassword,
  accountsDisable,
  accountsEnable,
  accountsList,
  importCommand,
  exportCommand,
  peopleFind,
  peopleErase,
  peopleExportData,
  demoCommand,
  migrateCommand,
  backupCommand,
  restoreCommand,
  auditCommand,
  webhooksAdd,
  webhooksList,
  webhooksRemove,
  webhooksRotateSecret,
  webhooksDeliveries,
  webhooksRedeliver,
  webhooksEnable,
  webhooksPing,
];
