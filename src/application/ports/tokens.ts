/** Injection identifiers of the ports; the composition root binds an adapter to each. */
export const TYPES = {
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
} as const;
