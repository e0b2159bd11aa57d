import type { Grace } from '../../domain/grace';
import type { AccountRepository } from './account-repository';
import type { ApiKeyRepository } from './api-key-repository';
import type { AuditLog } from './audit-log';
import type { ChangeFeed } from './change-feed';
import type { Clock } from './clock';
import type { ErasurePurge } from './erasure-purge';
import type { LoginThrottle } from './login-throttle';
import type { OperatorEvents } from './operator-events';
import type { PasswordHasher } from './password-hasher';
import type { PersonRepository } from './person-repository';
import type { Spools } from './spool';
import type { TokenService } from './token-service';
import type { UnitOfWork } from './unit-of-work';
import type { WebhookSender } from './webhook-sender';
import type { WebhookStore } from './webhook-store';

/** Every port by name, with the type its adapter has: what the use cases are built from. */
export interface Ports {
  PersonRepository: PersonRepository;
  AccountRepository: AccountRepository;
  ApiKeyRepository: ApiKeyRepository;
  AuditLog: AuditLog;
  ChangeFeed: ChangeFeed;
  UnitOfWork: UnitOfWork;
  PasswordHasher: PasswordHasher;
  TokenService: TokenService;
  Clock: Clock;
  LoginThrottle: LoginThrottle;
  WebhookStore: WebhookStore;
  WebhookSender: WebhookSender;
  OperatorEvents: OperatorEvents;
  ErasurePurge: ErasurePurge;
  Spools: Spools;
  /**
   * Not a port but a setting the use cases read beside the clock: the grace days that, with
   * today, decide standing (SPEC §10). One value for the process, read at start.
   */
  Grace: Grace;
}

/** Injection identifiers of the ports; the composition root binds an adapter to each. */
export const TYPES: { readonly [Name in keyof Ports]: symbol } = {
  PersonRepository: Symbol.for('PersonRepository'),
  AccountRepository: Symbol.for('AccountRepository'),
  ApiKeyRepository: Symbol.for('ApiKeyRepository'),
  AuditLog: Symbol.for('AuditLog'),
  ChangeFeed: Symbol.for('ChangeFeed'),
  UnitOfWork: Symbol.for('UnitOfWork'),
  PasswordHasher: Symbol.for('PasswordHasher'),
  TokenService: Symbol.for('TokenService'),
  Clock: Symbol.for('Clock'),
  LoginThrottle: Symbol.for('LoginThrottle'),
  WebhookStore: Symbol.for('WebhookStore'),
  WebhookSender: Symbol.for('WebhookSender'),
  OperatorEvents: Symbol.for('OperatorEvents'),
  ErasurePurge: Symbol.for('ErasurePurge'),
  Spools: Symbol.for('Spools'),
  Grace: Symbol.for('Grace'),
};
