import 'reflect-metadata';
import { Container } from 'inversify';
import type { Logger } from 'pino';
import type { ChangeFeed } from './application/ports/change-feed';
import type { ErasurePurge } from './application/ports/erasure-purge';
import type { Clock } from './application/ports/clock';
import type { Grace } from './domain/grace';
import type { LoginThrottle } from './application/ports/login-throttle';
import type { PasswordHasher } from './application/ports/password-hasher';
import type { Spools } from './application/ports/spool';
import type { TokenService } from './application/ports/token-service';
import { TYPES } from './application/ports/tokens';
import { AnnounceMembershipTransitions } from './application/changes/announce-membership-transitions';
import { AnnounceRenewalNotices } from './application/changes/announce-renewal-notices';
import { AnnounceStanding } from './application/changes/announce-standing';
import { PruneChanges } from './application/changes/prune-changes';
import { bindUseCases } from './bind-use-cases';
import type { Config } from './config';
import { ConcurrencyLimit } from './infrastructure/persistence/concurrency-limit';
import { type Database, queriesWaiting } from './infrastructure/persistence/database';
import { CachingAccountRepository } from './infrastructure/credentials/caching-account-repository';
import { CachingApiKeyRepository } from './infrastructure/credentials/caching-api-key-repository';
import { readinessProbe } from './infrastructure/persistence/readiness';
import { ReadinessCheck } from './infrastructure/persistence/readiness-check';
import { CachingUnitOfWork } from './infrastructure/credentials/caching-unit-of-work';
import { CredentialCache } from './infrastructure/credentials/credential-cache';
import { KeyEventsListener } from './infrastructure/credentials/key-events-listener';
import { PgListener } from './infrastructure/persistence/pg-listener';
import { createRepositories } from './infrastructure/persistence/repositories';
import { SqlChangeFeed } from './infrastructure/persistence/sql-change-feed';
import { SqlUnitOfWork } from './infrastructure/persistence/sql-unit-of-work';
import { BcryptPasswordHasher } from './infrastructure/security/bcrypt-password-hasher';
import { InMemoryLoginThrottle } from './infrastructure/security/in-memory-login-throttle';
import { RepeatingJob } from './infrastructure/jobs/repeating-job';
import { RedisConnection } from './infrastructure/rate-limit/redis-connection';
import { RedisLoginThrottle } from './infrastructure/security/redis-login-throttle';
import { TokenCodec } from './infrastructure/security/token-codec';
import { FileSpools } from './infrastructure/spool/file-spools';
import { SystemClock } from './infrastructure/system-clock';
import type { WebhookSender } from './application/ports/webhook-sender';
import type { WebhookStore } from './application/ports/webhook-store';
import { DeliverWebhooks } from './application/webhooks/deliver-webhooks';
import {
  CHANGES_CHANNEL,
  DELIVERIES_CHANNEL,
  SqlWebhookStore,
} from './infrastructure/webhooks/sql-webhook-store';
import { webhookPayloads } from './infrastructure/webhooks/webhook-payload';
import { HttpWebhookSender } from './infrastructure/webhooks/http-webhook-sender';
import { WebhookRunner } from './infrastructure/webhooks/webhook-runner';
import type { OperatorEvents } from './application/ports/operator-events';
import { createLogger } from './infrastructure/observability/logger';
import { LoggedOperatorEvents } from './infrastructure/observability/logged-operator-events';
import { OperatorMetrics } from './infrastructure/observability/operator-metrics';
import { BackgroundErasurePurge, SqlErasurePurge } from './infrastructure/persistence/sql-erasure-purge';
import { HEAVY_REST_RATIO, RequestActivity } from './request-activity';

/** Identifiers of what the composition root provides besides the ports. */
export const APP = {
  Config: Symbol.for('Config'),
  Database: Symbol.for('Database'),
  Logger: Symbol.for('Logger'),
  /** RedisConnection, or null without REDIS_URL. */
  Redis: Symbol.for('Redis'),
  /** KeyEventsListener on PostgreSQL, null on PGlite. */
  KeyEvents: Symbol.for('KeyEvents'),
  /** RequestActivity: the requests being served (the HTTP app tells it), to which streams give way. */
  RequestActivity: Symbol.for('RequestActivity'),
  /** CredentialCache: bearer credentials by token hash, invalidated by every change. */
  CredentialCache: Symbol.for('CredentialCache'),
  /** WebhookRunner: sends webhooks in the background of the service (not of the command line). */
  WebhookRunner: Symbol.for('WebhookRunner'),
  /** PgListener waking the WebhookRunner on PostgreSQL, null on PGlite. */
  WebhookListener: Symbol.for('WebhookListener'),
  /** RepeatingJob[]: the calendar and the feed's retention, started with the connections. */
  Jobs: Symbol.for('Jobs'),
  /** OperatorMetrics: webhooks and sign-in figures, served on /metrics beside the HTTP ones. */
  OperatorMetrics: Symbol.for('OperatorMetrics'),
  /** ReadinessCheck: what GET /readyz asks, the queries requests make, shared by concurrent probes. */
  Readiness: Symbol.for('Readiness'),
  /** BackgroundErasurePurge: the purges after erasures made over HTTP, stopped at shutdown. */
  BackgroundErasurePurge: Symbol.for('BackgroundErasurePurge'),
} as const;

/** The calendar turns at midnight in DIRECTORY_TIMEZONE; a minute late at most is soon enough. */
const CALENDAR_INTERVAL_MS = 60_000;
/** Retention is counted in days: an hour late is nothing. */
const RETENTION_INTERVAL_MS = 60 * 60_000;

/**
 * How often the webhook runner looks for work unwoken. PostgreSQL wakes it by notification, so
 * polling there only covers a lost connection; PGlite cannot notify another connection, so it
 * polls often enough for a change to reach a receiver well within a second.
 */
const WEBHOOK_POLL_MS = { postgres: 1000, pglite: 250 } as const;

/** Streams give way to other requests while one has arrived or ended this recently. */
const RECENT_ACTIVITY_MS = 100;

/**
 * On PGlite, one statement at a time: pages and feed pages are read in parts of this many, and of
 * SHARED_PAGE_PART while other keys are about, so that their lookups wait behind a few
 * milliseconds' part. Measured with `npm run bench -- --pglite --only page_loops` (100,000 people):
 * parts of 250 let another key's lookup p99 rise ×4–5 during 16 loops of pages of 1000, of 100
 * ×2.7–3.3, of 50 ×2.1–2.4; a lone client's page of 1000 took 40 ms in parts of 250, 60 in parts of 50.
 */
const PGLITE_PAGE_PART = 250;
const SHARED_PAGE_PART = 50;

/** Adapters a caller may replace: tests freeze the clock or share a throttle. */
export interface ContainerOverrides {
  clock?: Clock;
  loginThrottle?: LoginThrottle;
  passwordHasher?: PasswordHasher;
  tokenService?: TokenService;
  logger?: Logger;
  /** Prefix of every Redis key, so that test runs sharing one Redis never meet. */
  redisKeyPrefix?: string;
  /** How webhooks are sent (tests shorten the timeout). */
  webhookSender?: WebhookSender;
  /** How often the webhook runner polls when nothing wakes it. */
  webhookPollMs?: number;
}

/**
 * The one composition root, one container per process: the HTTP app and the command line both
 * get their use cases here, every one of them bound below, so that every port has exactly one
 * adapter in production and all shared state (caches, counters, limits) has one owner.
 */
export function createContainer(
  config: Config,
  database: Database,
  overrides: ContainerOverrides = {},
): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  // Every use case, built when first asked for from the ports bound below.
  bindUseCases(container);

  container.bind<Config>(APP.Config).toConstantValue(config);
  container.bind<Database>(APP.Database).toConstantValue(database);
  const logger = overrides.logger ?? createLogger(config.logLevel);
  container.bind<Logger>(APP.Logger).toConstantValue(logger);

  // Bearer verification reads credentials through a cache that every revocation, account change
  // and (on PostgreSQL) every other instance's notification invalidates: see CredentialCache.
  // PGlite belongs to this process, so its cache needs no listener to be served.
  const cache = new CredentialCache({ alwaysUsable: database.kind === 'pglite' });
  container.bind<CredentialCache>(APP.CredentialCache).toConstantValue(cache);
  // The command-line tool beside the service writes through its own process: forget every
  // credential as soon as one of its transactions is over (see PgliteGate).
  database.gate?.onVisitorDone(() => cache.clear());
  const activity = new RequestActivity();
  container.bind<RequestActivity>(APP.RequestActivity).toConstantValue(activity);
  // Long streams read their batches after the first one at a time in this process, whatever the
  // pool's size; and while other requests are about (not counting those that wait for a place
  // among the streams: they wait for no query), or queries wait for a connection, each batch is
  // followed by a rest twice as long as itself (HEAVY_REST_RATIO, as a key's heavy pages), so that
  // they get at least two thirds of the database's time. Measured on two cores with `npm run bench
  // -- --only slow_streams`: three batches at once raised the lookups' p99 about twentyfold with
  // four fast readers on PostgreSQL; on PGlite, which runs every queued query in one go, letting no
  // other request in meanwhile, one at a time without the rest raised it four- to eighteenfold, with
  // a rest as long as the batch 1.05 to 1.9 times, twice as long 1.1 to 1.65. Also on PGlite a
  // lookup may queue behind a batch, so there they are 250 people (about 15 ms, against 55 for
  // 1000); PostgreSQL keeps 1000, as a full list read in batches of 250 took a tenth longer.
  const pagePart =
    database.kind === 'pglite'
      ? () => (activity.sharedPages > 0 ? SHARED_PAGE_PART : PGLITE_PAGE_PART)
      : undefined;
  const othersWaiting = () =>
    activity.inFlight > activity.streams + activity.streamsWaiting ||
    activity.quietFor() < RECENT_ACTIVITY_MS ||
    queriesWaiting(database) > 0;
  const repositories = createRepositories(database.dataSource.manager, {
    streaming: {
      lane: new ConcurrencyLimit(1, { restWhile: othersWaiting, restRatio: HEAVY_REST_RATIO }),
      laterBatchSize: database.kind === 'pglite' ? 250 : 1000,
      pagePart,
    },
    preparedLookups: true,
  });
  container.bind(TYPES.PersonRepository).toConstantValue(repositories.people);
  container
    .bind<ReadinessCheck>(APP.Readiness)
    .toConstantValue(new ReadinessCheck(readinessProbe(repositories), logger));
  container
    .bind(TYPES.AccountRepository)
    .toConstantValue(new CachingAccountRepository(repositories.accounts, cache));
  container
    .bind(TYPES.ApiKeyRepository)
    .toConstantValue(new CachingApiKeyRepository(repositories.keys, cache, cache));
  container.bind(TYPES.AuditLog).toConstantValue(repositories.audit);
  container.bind<ChangeFeed>(TYPES.ChangeFeed).toConstantValue(
    new SqlChangeFeed(database.dataSource.manager, {
      preparedPosition: true,
      pagePart,
    }),
  );
  // Erasures over HTTP answer at their commit; what held the values is rewritten here meanwhile.
  const purges = new BackgroundErasurePurge(database.dataSource, (error) =>
    logger.warn(
      { err: error },
      'erased values not purged yet: the retention job tries again within the hour',
    ),
  );
  container.bind<BackgroundErasurePurge>(APP.BackgroundErasurePurge).toConstantValue(purges);
  container
    .bind(TYPES.UnitOfWork)
    .toConstantValue(
      new CachingUnitOfWork(new SqlUnitOfWork(database.dataSource, { background: purges }), cache),
    );
  const keyEvents =
    database.kind === 'postgres' && config.databaseUrl !== null
      ? new KeyEventsListener(config.databaseUrl, cache, logger)
      : null;
  container.bind<KeyEventsListener | null>(APP.KeyEvents).toConstantValue(keyEvents);

  // The login throttle's counters, and those of the HTTP app's rate limit, live in Redis when it
  // is configured, so that every instance counts the same requests and failures.
  const redis =
    config.redisUrl === null
      ? null
      : new RedisConnection(config.redisUrl, logger, { keyPrefix: overrides.redisKeyPrefix });
  container.bind<RedisConnection | null>(APP.Redis).toConstantValue(redis);

  const clock = overrides.clock ?? new SystemClock(config.directoryTimezone);
  container.bind<Clock>(TYPES.Clock).toConstantValue(clock);
  container.bind<Grace>(TYPES.Grace).toConstantValue(config.grace);
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

  // Webhooks: a queue on our own tables (docs/decisions.md, "Webhooks"), run in the background.
  const webhookStore = new SqlWebhookStore(database.dataSource, webhookPayloads);
  container.bind<WebhookStore>(TYPES.WebhookStore).toConstantValue(webhookStore);

  // What an operator must see: lockouts, webhook failures and disablings as log lines and metrics.
  const operatorMetrics = new OperatorMetrics(() => webhookStore.backlog());
  if (redis !== null) operatorMetrics.watchRedis(() => redis.ready);
  container.bind<OperatorMetrics>(APP.OperatorMetrics).toConstantValue(operatorMetrics);
  container
    .bind<OperatorEvents>(TYPES.OperatorEvents)
    .toConstantValue(new LoggedOperatorEvents(logger, operatorMetrics));
  const sender = overrides.webhookSender ?? new HttpWebhookSender();
  container.bind<WebhookSender>(TYPES.WebhookSender).toConstantValue(sender);
  const runner = new WebhookRunner(container.get(DeliverWebhooks), {
    concurrency: config.webhookConcurrency,
    pollIntervalMs: overrides.webhookPollMs ?? WEBHOOK_POLL_MS[database.kind],
    logger,
  });
  container.bind<WebhookRunner>(APP.WebhookRunner).toConstantValue(runner);
  // A command of the tool beside the service (PGlite) may have added or redelivered something.
  database.gate?.onVisitorDone(() => runner.wake());
  container.bind<PgListener | null>(APP.WebhookListener).toConstantValue(
    database.kind === 'postgres' && config.databaseUrl !== null
      ? new PgListener(
          config.databaseUrl,
          {
            channels: [CHANGES_CHANNEL, DELIVERIES_CHANNEL],
            applicationName: 'membership-directory webhooks',
            messages: {
              lost: 'webhooks: not listening for changes; polling until reconnected',
              back: 'webhooks: listening for changes again',
            },
          },
          // Woken on every change, and on each (re)connection: what was sent meanwhile is unheard.
          { notification: () => runner.wake(), up: () => runner.wake(), down: () => undefined },
          logger,
        )
      : null,
  );

  // The records an import checked, kept on disk until it writes them (docs/decisions.md).
  container.bind<Spools>(TYPES.Spools).toConstantValue(new FileSpools());
  container.bind<ErasurePurge>(TYPES.ErasurePurge).toConstantValue(new SqlErasurePurge(database.dataSource));

  // Every instance runs them: the calendar's row locks and the idempotent prune make that safe.
  const jobs = [
    new RepeatingJob(
      'calendar',
      CALENDAR_INTERVAL_MS,
      async () => {
        const told = await container.get(AnnounceMembershipTransitions).execute();
        if (told.started + told.ended > 0)
          logger.info(told, 'memberships started or ended: changes recorded');
        // After the transitions: a membership that has just begun is told begun before ending.
        const notices = await container
          .get(AnnounceRenewalNotices)
          .execute({ noticeDays: config.renewalNoticeDays });
        if (notices.ending > 0) logger.info(notices, 'memberships near their end: renewal notices recorded');
        // After the ends: a membership is told ended before it is told lapsed.
        const standing = await container.get(AnnounceStanding).execute();
        if (standing.lapsed + standing.standingChanged > 0)
          logger.info(standing, 'memberships lapsed or standings changed: changes recorded');
      },
      logger,
    ),
    new RepeatingJob(
      'changes-retention',
      RETENTION_INTERVAL_MS,
      () => container.get(PruneChanges).execute({ retentionDays: config.changesRetentionDays }),
      logger,
    ),
  ];
  container.bind<RepeatingJob[]>(APP.Jobs).toConstantValue(jobs);
  return container;
}

/**
 * Opens what the server needs besides the database pool: Redis and the listener for other
 * instances' revocations, and starts the background jobs. Never fails: without them the service
 * still serves (counting per instance, reading every key from the database) and they keep
 * reconnecting. The command line does not call it, so it holds no connection beyond the database.
 */
export async function startConnections(container: Container): Promise<void> {
  await Promise.all([
    container.get<RedisConnection | null>(APP.Redis)?.start(),
    container.get<KeyEventsListener | null>(APP.KeyEvents)?.start(),
  ]);
  for (const job of container.get<RepeatingJob[]>(APP.Jobs)) job.start();
  // Webhooks are sent by the service only: the command line queues, the service sends.
  void container.get<PgListener | null>(APP.WebhookListener)?.start();
  container.get<WebhookRunner>(APP.WebhookRunner).start();
}

/**
 * Stops the jobs and closes what startConnections opened; before the database is closed. Webhook
 * sends in flight get two seconds to finish; the rest are cancelled and recorded as such, due
 * again at once.
 */
export async function closeConnections(container: Container): Promise<void> {
  await container.get<WebhookRunner>(APP.WebhookRunner).stop();
  await container.get<BackgroundErasurePurge>(APP.BackgroundErasurePurge).stop();
  await Promise.all([
    container.get<PgListener | null>(APP.WebhookListener)?.close(),
    ...container.get<RepeatingJob[]>(APP.Jobs).map((job) => job.stop()),
    container.get<RedisConnection | null>(APP.Redis)?.close(),
    container.get<KeyEventsListener | null>(APP.KeyEvents)?.close(),
  ]);
}
