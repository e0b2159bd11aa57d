import type { Container } from 'inversify';
import { ChangePassword } from './application/accounts/change-password';
import { CreateAccount } from './application/accounts/create-account';
import { GrantPermission } from './application/accounts/grant-permission';
import { ListAccounts } from './application/accounts/list-accounts';
import { RevokePermission } from './application/accounts/revoke-permission';
import { SetAccountDisabled } from './application/accounts/set-account-disabled';
import { ReadAuditLog } from './application/audit/read-audit-log';
import { AnnounceMembershipTransitions } from './application/changes/announce-membership-transitions';
import { AnnounceRenewalNotices } from './application/changes/announce-renewal-notices';
import { AnnounceStanding } from './application/changes/announce-standing';
import { ListChanges } from './application/changes/list-changes';
import { PruneChanges } from './application/changes/prune-changes';
import { TakeChangesCursor } from './application/changes/take-changes-cursor';
import { CreateDemoDirectory } from './application/demo/create-demo-directory';
import { AuthenticateAccount } from './application/keys/authenticate-account';
import { AuthenticateKey } from './application/keys/authenticate-key';
import { IssueKey } from './application/keys/issue-key';
import { ListKeys } from './application/keys/list-keys';
import { RevokeKey } from './application/keys/revoke-key';
import { EraseLeftMembers, ErasePerson } from './application/people/erase-people';
import { ExportPeople } from './application/people/export-people';
import { ExportPersonData } from './application/people/export-person-data';
import { FindPeople } from './application/people/find-people';
import { GetPerson } from './application/people/get-person';
import { IdentifyPerson } from './application/people/identify-person';
import { ImportPeople } from './application/people/import-people';
import { SearchPeople } from './application/people/search-people';
import { UpdatePerson } from './application/people/update-person';
import { WritePersonRecord } from './application/people/write-person-record';
import { type Ports, TYPES } from './application/ports/tokens';
import { AddWebhook } from './application/webhooks/add-webhook';
import { DeliverWebhooks } from './application/webhooks/deliver-webhooks';
import { EnableWebhook } from './application/webhooks/enable-webhook';
import { ListWebhookDeliveries } from './application/webhooks/list-webhook-deliveries';
import { ListWebhooks } from './application/webhooks/list-webhooks';
import { PingWebhook } from './application/webhooks/ping-webhook';
import { RedeliverWebhook } from './application/webhooks/redeliver-webhook';
import { RemoveWebhook } from './application/webhooks/remove-webhook';
import { RotateWebhookSecret } from './application/webhooks/rotate-webhook-secret';

type PortName = keyof Ports;
/** The adapters of the named ports, in their order. */
type PortsNamed<Names extends PortName[]> = { [I in keyof Names]: Ports[Names[I]] };

/**
 * Binds every use case to the ports it is built from, named in the order of its constructor's
 * parameters (the type-check refuses a name whose port is not the parameter's type). The use
 * cases are plain classes that know nothing of the container. Each is built once, when first
 * asked for, so that a test may rebind a port before (AuthenticateKey must be one: it remembers
 * when each key was last touched).
 */
export function bindUseCases(container: Container): void {
  const useCase = <Names extends PortName[]>(
    type: new (...ports: NoInfer<PortsNamed<Names>>) => object,
    ...names: Names
  ) => {
    container
      .bind(type)
      .toDynamicValue(
        (context) => new type(...(names.map((name) => context.get(TYPES[name])) as PortsNamed<Names>)),
      )
      .inSingletonScope();
  };

  useCase(SearchPeople, 'PersonRepository', 'Clock', 'Grace');
  useCase(GetPerson, 'PersonRepository', 'Clock');
  useCase(UpdatePerson, 'PersonRepository', 'UnitOfWork', 'Clock');
  useCase(FindPeople, 'PersonRepository', 'Clock', 'Grace');
  useCase(IdentifyPerson, 'PersonRepository', 'Clock', 'Grace');
  useCase(ImportPeople, 'UnitOfWork', 'Clock', 'Spools');
  useCase(WritePersonRecord, 'PersonRepository', 'UnitOfWork', 'Clock');
  useCase(ExportPeople, 'UnitOfWork', 'Clock', 'Grace');
  useCase(ExportPersonData, 'UnitOfWork', 'Clock', 'Grace');
  useCase(ErasePerson, 'UnitOfWork', 'Clock');
  useCase(EraseLeftMembers, 'UnitOfWork', 'Clock', 'Grace');

  useCase(AuthenticateAccount, 'AccountRepository', 'PasswordHasher', 'LoginThrottle', 'OperatorEvents');
  useCase(AuthenticateKey, 'ApiKeyRepository', 'TokenService', 'Clock');
  useCase(IssueKey, 'UnitOfWork', 'TokenService', 'Clock');
  useCase(ListKeys, 'ApiKeyRepository', 'Clock');
  useCase(RevokeKey, 'UnitOfWork', 'Clock');

  useCase(CreateAccount, 'UnitOfWork', 'PasswordHasher');
  useCase(ListAccounts, 'AccountRepository', 'Clock');
  useCase(ChangePassword, 'UnitOfWork', 'PasswordHasher');
  useCase(SetAccountDisabled, 'UnitOfWork');
  useCase(GrantPermission, 'UnitOfWork');
  useCase(RevokePermission, 'UnitOfWork', 'Clock');
  useCase(ReadAuditLog, 'AuditLog');
  useCase(CreateDemoDirectory, 'UnitOfWork', 'PasswordHasher', 'Clock');

  useCase(ListChanges, 'ChangeFeed', 'Clock', 'Grace');
  useCase(TakeChangesCursor, 'ChangeFeed');
  useCase(AnnounceMembershipTransitions, 'UnitOfWork', 'Clock');
  useCase(AnnounceRenewalNotices, 'UnitOfWork', 'Clock');
  useCase(AnnounceStanding, 'UnitOfWork', 'Clock', 'Grace');
  useCase(PruneChanges, 'ChangeFeed', 'WebhookStore', 'ErasurePurge', 'Clock');

  useCase(AddWebhook, 'WebhookStore');
  useCase(ListWebhooks, 'WebhookStore');
  useCase(RemoveWebhook, 'WebhookStore');
  useCase(RotateWebhookSecret, 'WebhookStore', 'Clock');
  useCase(ListWebhookDeliveries, 'WebhookStore');
  useCase(RedeliverWebhook, 'WebhookStore', 'Clock');
  useCase(EnableWebhook, 'WebhookStore', 'Clock');
  useCase(PingWebhook, 'WebhookStore', 'WebhookSender', 'Clock');
  useCase(DeliverWebhooks, 'WebhookStore', 'WebhookSender', 'Clock', 'OperatorEvents');
}
