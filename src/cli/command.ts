import type { Container } from 'inversify';
import type { Config } from '../config';
import type { Database } from '../infrastructure/persistence/database';
import type { CliIo } from './cli-io';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** How the value is shown in the help, e.g. "U" for --username U. */
  value?: string;
  description: string;
}

/** What a running command gets: its arguments, the settings, and the composition root. */
export interface CommandContext {
  io: CliIo;
  config: Config;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** Only for commands that need the database. */
  container: Container;
  database: Database;
}

export interface Command {
  /** The words that select it, e.g. ["accounts", "create"]. */
  path: string[];
  /** One line for the list of commands. */
  summary: string;
  /** The arguments after the command words, as the help shows them. */
  usage: string;
  /** A few lines for the command's own help. */
  description: string;
  options: Record<string, OptionSpec>;
  positionals: { name: string; optional?: boolean }[];
  /**
   * Which positionals (by index) are files, when that depends on the options; without it, those
   * named FILE. The tool makes them absolute against the caller's directory (file-arguments.ts).
   */
  files?(values: Record<string, string | boolean | undefined>, positionals: string[]): number[];
  /** "migrated": opens the database and applies pending migrations first; "raw": opens it only. */
  database: 'migrated' | 'raw';
  /**
   * Checks of the arguments made before the database is opened, for a command whose arguments
   * decide whether it should be (restore: a file that is no backup must not leave a new DATA_DIR).
   */
  check?(context: Omit<CommandContext, 'database' | 'container'>): Promise<void>;
  run(context: CommandContext): Promise<void>;
}
