import 'reflect-metadata';
import type { Container } from 'inversify';
import { type Config, ConfigError, loadConfig } from '../config';
import { type ContainerOverrides, createContainer } from '../container';
import { DomainError, Unavailable } from '../domain/errors';
import { DataDirectoryError } from '../infrastructure/embedded/data-dir-lock';
import { type Database, migrate, SchemaNewerThanCode } from '../infrastructure/persistence/database';
import { isDatabaseUnavailable } from '../infrastructure/persistence/database-errors';
import { CliFailure, UsageError } from './cli-errors';
import type { CliIo } from './cli-io';
import type { Command } from './command';
import { COMMANDS } from './commands';
import { TOOL } from './help';
import { openToolDatabase } from './open-tool-database';
import { parseCommandLine } from './parse-command-line';
import { refuseServiceOnOtherSchema } from './served-schema';
import { printLine } from './write-text';

export interface RunCliOptions extends Partial<CliIo> {
  /** An open database to use (and leave open); otherwise the one the settings name is opened. */
  database?: Database;
  /** Adapters to replace in the composition root, e.g. a frozen clock in tests. */
  overrides?: ContainerOverrides;
  /**
   * The composition root already built on `database`, to use instead of a new one: one container
   * per process, so that a test running the tool beside its own use cases shares their caches.
   */
  container?: Container;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

// Enough to fix a file in a few passes without flooding the terminal.
const MAX_DETAILS = 20;

/**
 * Runs one command of the tool and answers its exit code: 0 success, 1 failure, 2 wrong usage.
 * Expected failures are reported in a line on stderr, never with a stack trace (unless DEBUG).
 */
export async function runCli(argv: string[], options: RunCliOptions = {}): Promise<number> {
  const io: CliIo = {
    stdin: options.stdin ?? process.stdin,
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    env: options.env ?? process.env,
  };
  try {
    const invocation = parseCommandLine(argv, COMMANDS);
    if (invocation.kind === 'help') {
      io.stdout.write(invocation.text);
      return EXIT_OK;
    }
    const config = loadConfig(io.env);
    const name = invocation.command.path.join(' ');
    await invocation.command.check?.({ ...invocation, name, io, config });
    await withDatabase(config, invocation.command, options, io, async (database, container) => {
      await invocation.command.run({ ...invocation, name, io, config, database, container });
    });
    return EXIT_OK;
  } catch (error) {
    return report(error, io);
  }
}

async function withDatabase(
  config: Config,
  command: Command,
  options: RunCliOptions,
  io: CliIo,
  work: (database: Database, container: Container) => Promise<void>,
): Promise<void> {
  const database = options.database ?? (await openToolDatabase(config, io));
  try {
    // Every command finds the schema it expects, as the service does at start-up; `migrate` itself
    // (database 'raw') decides for itself, for `migrate --status` only reads.
    if (command.database === 'migrated') {
      if (database.servedBy !== undefined) await refuseServiceOnOtherSchema(database);
      else await migrate(database);
    }
    await work(database, options.container ?? createContainer(config, database, options.overrides));
  } finally {
    if (options.database === undefined) await database.close();
  }
}

function report(error: unknown, io: CliIo): number {
  const say = (line: string) => printLine(io.stderr, line);
  if (error instanceof UsageError) {
    say(`error: ${error.message}`);
    say(`see: ${[TOOL, error.command, '--help'].filter((p) => p !== '').join(' ')}`);
    return EXIT_USAGE;
  }
  if (error instanceof CliFailure) {
    say(`error: ${error.message}`);
    sayDetails(error.details, say);
  } else if (error instanceof DataDirectoryError || error instanceof SchemaNewerThanCode) {
    say(`error: ${error.message}`);
  } else if (error instanceof Unavailable || isDatabaseUnavailable(error)) {
    say(`error: the database cannot be reached; check DATABASE_URL (or DATA_DIR) and that the server is up`);
  } else if (error instanceof DomainError) {
    if (error.total === 1) say(`error: ${error.messages[0]}`);
    else {
      say(`error: ${error.total} problems; nothing was changed`);
      sayDetails(error.messages, say, error.total);
    }
  } else if (error instanceof ConfigError) {
    say(`error: ${error.message}`);
  } else {
    // Not `instanceof Error`: errors made by Node's own modules may come from another realm.
    const message = (error as { message?: unknown })?.message;
    say(`error: ${String(message ?? error).split('\n')[0]}`);
    if (!io.env.DEBUG) say('(set DEBUG=1 to see where it happened)');
  }
  const stack = (error as { stack?: unknown })?.stack;
  if (io.env.DEBUG && typeof stack === 'string') say(stack);
  return EXIT_FAILURE;
}

/** `total`: how many details there were, when only the first were kept. */
function sayDetails(details: string[], say: (line: string) => void, total = details.length): void {
  const shown = details.slice(0, MAX_DETAILS);
  for (const detail of shown) say(`  ${detail}`);
  if (total > shown.length) say(`  ... and ${total - shown.length} more`);
}
