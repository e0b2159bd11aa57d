import 'reflect-metadata';
import { Container } from 'inversify';
import pino, { type Logger } from 'pino';
import type { Clock } from './application/ports/clock';
import type { LoginThrottle } from './application/ports/login-throttle';
import type { PasswordHasher } from './application/ports/password-hasher';
import type { TokenService } from './application/ports/token-service';
import { TYPES } from './application/ports/tokens';
import { AuthenticateAccount } from './application/keys/authenticate-account';
import { AuthenticateKey } from './application/keys/authenticate-key';
import { IssueKey } from './application/keys/issue-key';
import { ListKeys } from './application/keys/list-keys';
import { RevokeKey } from './application/keys/revoke-key';
import { GetPerson } from './application/people/get-person';
import { SearchPeople } from './application/people/search-people';
import { UpdatePerson } from './application/people/update-person';
import type { Config } from './config';
import { RequestActivity } from './http/request-activity';
import { StreamLimits } from './http/stream-limits';
import { ConcurrencyLimit } from './infrastructure/persistence/concurrency-limit';
import { type Database, queriesWaiting } from './infrastructure/persistence/database';
import { CachingAccountRepository } from './infrastructure/persistence/caching-account-repository';
import { CachingApiKeyRepository } from './infrastructure/persistence/caching-api-key-repository';
import { CachingUnitOfWork } from './infrastructure/persistence/caching-unit-of-work';
import { credentialCacheFor } from './infrastructure/persistence/credential-cache';
import { KeyEventsListener } from './infrastructure/persistence/key-events-listener';
import { createRepositories } from './infrastructure/persistence/repositories';
import { TypeOrmUnitOfWork } from './infrastructure/persistence/typeorm-unit-of-work';
import { BcryptPasswordHasher } from './infrastructure/security/bcrypt-password-hasher';
import { InMemoryLoginThrottle } from './infrastructure/security/in-memory-login-throttle';
import { RedisConnection } from './infrastructure/rate-limit/redis-connection';
import { RedisLoginThrottle } from './infrastructure/security/redis-login-throttle';
import { TokenCodec } from './infrastructure/security/token-codec';
import { SystemClock } from './infrastructure/system-clock';

/** Identifiers of what the composition root provides besides the ports. */
export const APP = {
  Config: Symbol.for('Config'),
  Database: Symbol.for('Database'),
  Logger: Symbol.for('Logger'),
  /** RedisConnection, or null without REDIS_URL. */
  Redis: Symbol.for('Redis'),
  /** KeyEventsListener on PostgreSQL, null on PGlite. */
  KeyEvents: Symbol.for('KeyEvents'),
  /** StreamLimits: the unpaged searches running in this process. */
  StreamLimits: Symbol.for('StreamLimits'),
  /** RequestActivity: the requests being served, to which streams give way. */
  RequestActivity: Symbol.for('RequestActivity'),
} as const;

/** Streams give way to other requests while one has arrived or ended this recently. */
const RECENT_ACTIVITY_MS = 100;

/** Adapters a caller may replace: tests freeze the clock or share a throttle. */
export interface ContainerOverrides {
  clock?: Clock;
  loginThrottle?: LoginThrottle;
  passwordHasher?: PasswordHasher;
  tokenService?: TokenService;
  logger?: Logger;
  /** Prefix of every Redis key, so that test runs sharing one Redis never meet. */
  redisKeyPrefix?: string;
  /** How long a stream waits for a client that does not read before cutting it off (30 s). */
  streamStallTimeoutMs?: number;
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

/** `destination` defaults to standard output; tests pass a stream to read what would be logged. */
export function createLogger(level: Config['logLevel'], destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination === undefined ? pino(options) : pino(options, destination);
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
  const logger = overrides.logger ?? createLogger(config.logLevel);
  container.bind<Logger>(APP.Logger).toConstantValue(logger);

  // Bearer verification reads credentials through a cache that every revocation, account change
  // and (on PostgreSQL) every other instance's notification invalidates: see CredentialCache.
  const cache = credentialCacheFor(database);
  // The command-line tool beside the service writes through its own container: forget every
  // credential as soon as one of its transactions is over (see PgliteGate).
  database.gate?.onVisitorDone(() => cache.clear());
  const streams = new StreamLimits({
    perKey: config.streamsPerKey,
    perInstance: config.streamsPerInstance,
    stallTimeoutMs: overrides.streamStallTimeoutMs,
  });
  container.bind<StreamLimits>(APP.StreamLimits).toConstantValue(streams);
  const activity = new RequestActivity();
  container.bind<RequestActivity>(APP.RequestActivity).toConstantValue(activity);
  // Long streams read their batches after the first one at a time in this process, whatever the
  // pool's size; and while other requests are about (or queries wait for a connection), each
  // batch is followed by a rest as long as itself, so that they get at least half the database's
  // time. Measured on two cores with `npm run bench -- --only slow_streams`: three batches at once
  // raised the lookups' p99 about twentyfold with four fast readers on PostgreSQL; on PGlite, which
  // runs every queued query in one go, letting no other request in meanwhile, one at a time without
  // the rest raised it four- to eighteenfold, with the rest 1.3 to 1.4 times. Also on PGlite a
  // lookup may queue behind a batch, so there they are 250 people (about 15 ms, against 55 for
  // 1000); PostgreSQL keeps 1000, as a full list read in batches of 250 took a tenth longer.
  const othersWaiting = () =>
    activity.inFlight > streams.active ||
    activity.quietFor() < RECENT_ACTIVITY_MS ||
    queriesWaiting(database) > 0;
  const repositories = createRepositories(database.dataSource.manager, {
    streaming: {
      lane: new ConcurrencyLimit(1, { restWhile: othersWaiting }),
      laterBatchSize: database.kind === 'pglite' ? 250 : 1000,
    },
  });
  container.bind(TYPES.PersonRepository).toConstantValue(repositories.people);
  container
    .bind(TYPES.AccountRepository)
    .toConstantValue(new CachingAccountRepository(repositories.accounts, cache));
  container
    .bind(TYPES.ApiKeyRepository)
    .toConstantValue(new CachingApiKeyRepository(repositories.keys, cache, cache));
  container.bind(TYPES.AuditLog).toConstantValue(repositories.audit);
  container
    .bind(TYPES.UnitOfWork)
    .toConstantValue(new CachingUnitOfWork(new TypeOrmUnitOfWork(database.dataSource), cache));
  const keyEvents =
    database.kind === 'postgres' && config.databaseUrl !== null
      ? new KeyEventsListener(config.databaseUrl, cache, logger)
      : null;
  container.bind<KeyEventsListener | null>(APP.KeyEvents).toConstantValue(keyEvents);

  // Rate-limit and login-throttle counters live in Redis when it is configured, so that every
  // instance counts the same requests and failures.
  const redis =
    config.redisUrl === null
      ? null
      : new RedisConnection(config.redisUrl, logger, { keyPrefix: overrides.redisKeyPrefix });
  container.bind<RedisConnection | null>(APP.Redis).toConstantValue(redis);

  const clock = overrides.clock ?? new SystemClock(config.directoryTimezone);
  container.bind<Clock>(TYPES.Clock).toConstantValue(clock);
  container
    .bind<PasswordHasher>(TYPES.PasswordHasher)
    .toConstantValue(overrides.passwordHasher ?? new BcryptPasswordHasher(config.bcryptCost));
  container
    .bind<TokenService>(TYPES.TokenService)
    .toConstantValue(overrides.tokenService ?? new TokenCodec());
  container.bind<LoginThrottle>(TYPES.LoginThrottle).toConstantValue(
    overrides.loginThrottle ??
      (redis === null
        ? new InMemoryLoginThrottle(clock)
        : new RedisLoginThrottle(redis, clock, {
            keyPrefix: redis.keyPrefix,
            fallback: new InMemoryLoginThrottle(clock),
            logger,
          })),
  );

  container.bind(SearchPeople).toSelf().inSingletonScope();
  container.bind(GetPerson).toSelf().inSingletonScope();
  container.bind(UpdatePerson).toSelf().inSingletonScope();
  container.bind(AuthenticateAccount).toSelf().inSingletonScope();
  container.bind(IssueKey).toSelf().inSingletonScope();
  container.bind(ListKeys).toSelf().inSingletonScope();
  container.bind(RevokeKey).toSelf().inSingletonScope();
  // A singleton on purpose: it remembers when each key was last touched.
  container.bind(AuthenticateKey).toSelf().inSingletonScope();
  return container;
}

/**
 * Opens what the server needs besides the database pool: Redis and the listener for other
 * instances' revocations. Never fails: without them the service still serves (counting per
 * instance, reading every key from the database) and they keep reconnecting. The command line
 * does not call it, so it holds no connection beyond the database.
 */
export async function startConnections(container: Container): Promise<void> {
  await Promise.all([
    container.get<RedisConnection | null>(APP.Redis)?.start(),
    container.get<KeyEventsListener | null>(APP.KeyEvents)?.start(),
  ]);
}

/** Closes what startConnections opened; before the database is closed. */
export async function closeConnections(container: Container): Promise<void> {
  await Promise.all([
    container.get<RedisConnection | null>(APP.Redis)?.close(),
    container.get<KeyEventsListener | null>(APP.KeyEvents)?.close(),
  ]);
}
