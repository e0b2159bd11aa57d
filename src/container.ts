import 'reflect-metadata';
import { Container } from 'inversify';
import pino, { type Logger } from 'pino';
import type { Clock } from './application/ports/clock';
import type { LoginThrottle } from './application/ports/login-throttle';
import type { PasswordHasher } from './application/ports/password-hasher';
import type { TokenService } from './application/ports/token-service';
import { TYPES } from './application/ports/tokens';
import { AuthenticateKey } from './application/keys/authenticate-key';
import { IssueKey } from './application/keys/issue-key';
import { ListKeys } from './application/keys/list-keys';
import { RevokeKey } from './application/keys/revoke-key';
import { GetPerson } from './application/people/get-person';
import { SearchPeople } from './application/people/search-people';
import { UpdatePerson } from './application/people/update-person';
import type { Config } from './config';
import type { Database } from './infrastructure/persistence/database';
import { createRepositories } from './infrastructure/persistence/repositories';
import { TypeOrmUnitOfWork } from './infrastructure/persistence/typeorm-unit-of-work';
import { BcryptPasswordHasher } from './infrastructure/security/bcrypt-password-hasher';
import { InMemoryLoginThrottle } from './infrastructure/security/in-memory-login-throttle';
import { TokenCodec } from './infrastructure/security/token-codec';
import { SystemClock } from './infrastructure/system-clock';

/** Identifiers of what the composition root provides besides the ports. */
export const APP = {
  Config: Symbol.for('Config'),
  Database: Symbol.for('Database'),
  Logger: Symbol.for('Logger'),
} as const;

/** Adapters a caller may replace: tests freeze the clock or share a throttle. */
export interface ContainerOverrides {
  clock?: Clock;
  loginThrottle?: LoginThrottle;
  passwordHasher?: PasswordHasher;
  tokenService?: TokenService;
  logger?: Logger;
}

/** Never written to a log, wherever it appears in a logged object. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.authorization',
  '*.password',
  '*.passwordHash',
  '*.token',
  '*.tokenHash',
];

export function createLogger(level: Config['logLevel']): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

/**
 * The one composition root: the HTTP app and the command line both get their use cases here, so
 * that every port has exactly one adapter in production.
 */
export function createContainer(
  config: Config,
  database: Database,
  overrides: ContainerOverrides = {},
): Container {
  // Autobinding lets a command resolve a use case class that is not listed below; those still get
  // their ports through the bindings here, and as singletons like the rest.
  const container = new Container({ autobind: true, defaultScope: 'Singleton' });

  container.bind<Config>(APP.Config).toConstantValue(config);
  container.bind<Database>(APP.Database).toConstantValue(database);
  container.bind<Logger>(APP.Logger).toConstantValue(overrides.logger ?? createLogger(config.logLevel));

  const repositories = createRepositories(database.dataSource.manager);
  container.bind(TYPES.PersonRepository).toConstantValue(repositories.people);
  container.bind(TYPES.AccountRepository).toConstantValue(repositories.accounts);
  container.bind(TYPES.ApiKeyRepository).toConstantValue(repositories.keys);
  container.bind(TYPES.AuditLog).toConstantValue(repositories.audit);
  container.bind(TYPES.UnitOfWork).toConstantValue(new TypeOrmUnitOfWork(database.dataSource));

  const clock = overrides.clock ?? new SystemClock(config.directoryTimezone);
  container.bind<Clock>(TYPES.Clock).toConstantValue(clock);
  container
    .bind<PasswordHasher>(TYPES.PasswordHasher)
    .toConstantValue(overrides.passwordHasher ?? new BcryptPasswordHasher(config.bcryptCost));
  container
    .bind<TokenService>(TYPES.TokenService)
    .toConstantValue(overrides.tokenService ?? new TokenCodec());
  container
    .bind<LoginThrottle>(TYPES.LoginThrottle)
    .toConstantValue(overrides.loginThrottle ?? new InMemoryLoginThrottle(clock));

  container.bind(SearchPeople).toSelf().inSingletonScope();
  container.bind(GetPerson).toSelf().inSingletonScope();
  container.bind(UpdatePerson).toSelf().inSingletonScope();
  container.bind(IssueKey).toSelf().inSingletonScope();
  container.bind(ListKeys).toSelf().inSingletonScope();
  container.bind(RevokeKey).toSelf().inSingletonScope();
  // A singleton on purpose: it remembers when each key was last touched.
  container.bind(AuthenticateKey).toSelf().inSingletonScope();
  return container;
}
