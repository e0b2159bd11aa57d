import './compile-cache';
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import type { PersonRepository } from './application/ports/person-repository';
import { TYPES } from './application/ports/tokens';
import { type Config, ConfigError, loadConfig } from './config';
import { closeConnections, createContainer, startConnections } from './container';
import { createLogger } from './infrastructure/observability/logger';
import { Unavailable } from './domain/errors';
import { createApp } from './http/app';
import { createHttpServer, type HttpServer } from './http/http-server';
import { answerMalformedRequests } from './http/malformed-requests';
import { DataDirectoryError } from './infrastructure/embedded/data-dir-lock';
import {
  type Database,
  migrate,
  refreshStatistics,
  SchemaNewerThanCode,
} from './infrastructure/persistence/database';
import { VERSION } from './version';
import { openDatabaseWhenFree } from './infrastructure/embedded/open-database-when-free';
import { type DatabaseServer, serveDatabase } from './infrastructure/embedded/serve-database';

const SHUTDOWN_TIMEOUT_MS = 10_000;
const RECOMMENDED_BCRYPT_COST = 12;

/** Expected start-up failures are told in one line; anything else keeps its stack for the operator. */
function fail(message: string, error?: unknown): never {
  process.stderr.write(`${message}\n`);
  if (error !== undefined) process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
}

function describeDatabase(config: Config): string {
  return config.databaseUrl === null
    ? `embedded PostgreSQL in ${config.dataDir}`
    : 'PostgreSQL at DATABASE_URL';
}

/**
 * SIGTERM or SIGINT: stop accepting, let requests in flight finish, close the database, exit 0.
 * A second signal, or requests still running after 10 s, end the process with 1.
 */
function shutDownOnSignals(
  { server, closeConnectionsAfterAnswers }: HttpServer,
  container: Container,
  database: Database,
  logger: Logger,
  databaseServer: DatabaseServer | null,
): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    // Answers still to come tell their clients not to reuse the connection.
    closeConnectionsAfterAnswers();
    // Like HTTP requests: no new command-line connections, and a transaction begun finishes.
    const commandsDone = databaseServer?.close() ?? Promise.resolve();
    setTimeout(() => {
      logger.error('requests still running after 10 s: exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    // Keep-alive connections between requests would hold server.close() open; closing the idle
    // ones repeatedly also catches those whose last request finishes during the shutdown.
    const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
    // The listener closes at once, before anything is logged: whoever reads the log line below
    // can rely on new connections being refused.
    server.close(() => {
      clearInterval(idleSweep);
      // Redis and the revocation listener first: nothing uses them once requests are done.
      closeConnections(container)
        .catch(() => undefined)
        .then(() => commandsDone)
        .then(() => database.close())
        .then(
          () => {
            logger.info('stopped');
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'closing the database failed');
            process.exit(1);
          },
        );
    });
    server.closeIdleConnections();
    logger.info({ signal }, 'shutting down: finishing requests in flight');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Resolves once the server listens on the port (of `host`, or every interface); rejects with the reason it cannot. */
function listen(server: Server, port: number, host: string | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => {
      server.off('listening', listening);
      reject(error);
    };
    const listening = () => {
      server.off('error', failed);
      resolve();
    };
    server.once('error', failed);
    server.once('listening', listening);
    if (host === null) server.listen(port);
    else server.listen(port, host);
  });
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`configuration error: ${error.message}`);
    throw error;
  }

  const logger = createLogger(config.logLevel);
  let database: Database;
  try {
    database = await openDatabaseWhenFree(
      { databaseUrl: config.databaseUrl, dataDir: config.databaseUrl === null ? config.dataDir : undefined },
      (owner) =>
        logger.warn(
          { pid: owner.pid, dataDir: config.dataDir },
          'a command-line tool has the embedded database open: starting once it has finished',
        ),
    );
  } catch (error) {
    if (error instanceof DataDirectoryError) fail(`start-up failed: ${error.message}`);
    if (error instanceof Unavailable)
      fail(`start-up failed: cannot reach the database (${describeDatabase(config)})`);
    fail(`start-up failed: cannot open the database (${describeDatabase(config)})`, error);
  }

  const container = createContainer(config, database, { logger });
  if (database.dataDir?.tightened) {
    logger.warn(
      { dataDir: database.dataDir.path },
      'DATA_DIR could be opened by other users: it and everything in it are now private to this user',
    );
  }
  if (config.bcryptCost < RECOMMENDED_BCRYPT_COST) {
    logger.warn(
      { bcryptCost: config.bcryptCost },
      `BCRYPT_COST is below ${RECOMMENDED_BCRYPT_COST}: passwords are cheaper to guess; use this only for tests`,
    );
  }

  try {
    const applied = await migrate(database);
    if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
    // PGlite runs no autovacuum: without statistics its planner picks slow plans for big directories.
    if (database.kind === 'pglite') await refreshStatistics(database, { vacuum: false });
    const people = await container.get<PersonRepository>(TYPES.PersonRepository).count();
    if (people === 0) {
      logger.warn(
        'The directory is empty: run `npm run cli -- demo` for demo data, or `npm run cli -- import FILE`',
      );
    }
  } catch (error) {
    await database.close().catch(() => undefined);
    if (error instanceof Unavailable)
      fail(`start-up failed: cannot reach the database (${describeDatabase(config)})`);
    if (error instanceof SchemaNewerThanCode) fail(`start-up failed: ${error.message}`);
    fail('start-up failed: preparing the database failed', error);
  }

  await startConnections(container);
  const http = createHttpServer(createApp(container), { keepAliveTimeoutS: config.keepAliveTimeoutS });
  const { server } = http;
  answerMalformedRequests(server);
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const where = config.host === null ? '' : ` on ${config.host}`;
    const reason =
      code === 'EADDRINUSE'
        ? `port ${config.port} is already in use${where}`
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
          ? `HOST ${config.host} is not an address of this machine (${code})`
          : message;
    await closeConnections(container).catch(() => undefined);
    await database.close().catch(() => undefined);
    fail(`start-up failed: cannot listen: ${reason}`);
  }
  // Later errors (a failed accept when file descriptors run out) must not end the process.
  server.on('error', (error) => logger.error({ err: error }, 'the HTTP server reported an error'));
  // Only once the port is ours: a service that cannot listen must not let the tool in either.
  // PGlite belongs to this process now: `npm run cli` connects to it over a private socket.
  let databaseServer: DatabaseServer | null = null;
  if (database.gate !== undefined) {
    try {
      databaseServer = await serveDatabase(database, { logger });
    } catch (error) {
      server.close();
      await closeConnections(container).catch(() => undefined);
      await database.close().catch(() => undefined);
      fail(`start-up failed: cannot let the command line in: ${(error as Error).message}`);
    }
  }
  const { address, port } = server.address() as AddressInfo;
  // Every interface is reachable as localhost too; a chosen one is named as it was given.
  const shown =
    config.host === null ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info(
    { address, port, database: database.kind, version: VERSION },
    `Membership Directory ${VERSION} listening on http://${shown}:${port}`,
  );
  shutDownOnSignals(http, container, database, logger, databaseServer);
}

main().catch((error: unknown) => fail('start-up failed', error));
