import type { Container } from 'inversify';
import type { Config } from '../config';
import type { Database } from '../infrastructure/persistence/database';
import type { CliIo } from './cli-io';
import { parsePositiveInteger } from './parse-values';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** How the value is shown in the help, e.g. "U" for --username U. */
  value?: string;
  description: string;
}

/** What a running command gets: its arguments, the settings, and the composition root. */
export interface CommandContext {
  /** The command's words, e.g. "accounts create": what a UsageError names for its --help. */
  name: string;
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

/** The parts of a command that most leave out, filled in by defineCommand. */
type Defaulted = 'usage' | 'options' | 'positionals' | 'database';
export type CommandDefinition = Omit<Command, Defaulted> & Partial<Pick<Command, Defaulted>>;

/** "--limit N", or "--json" for an option without a value. */
export function optionUsage(name: string, spec: OptionSpec): string {
  return `--${name}${spec.value ? ` ${spec.value}` : ''}`;
}

/**
 * A command as its file defines it, the common case filled in: no options, no positionals, the
 * database migrated first, and, unless it gives its own, a usage line of the positionals (optional
 * ones in brackets) and then every option in brackets.
 */
export function defineCommand(definition: CommandDefinition): Command {
  const options = definition.options ?? {};
  const positionals = definition.positionals ?? [];
  const usage =
    definition.usage ??
    [
      ...positionals.map(({ name, optional }) => (optional ? `[${name}]` : name)),
      ...Object.entries(options).map(([name, spec]) => `[${optionUsage(name, spec)}]`),
    ].join(' ');
  return { ...definition, usage, options, positionals, database: definition.database ?? 'migrated' };
}

/**
 * A command that takes one argument, the id of what it acts on (`ID` unless it names it
 * otherwise): its run gets the id checked and parsed.
 */
export function defineIdCommand({
  id = 'ID',
  run,
  ...definition
}: Omit<CommandDefinition, 'positionals' | 'run'> & {
  id?: string;
  run(context: CommandContext, id: number): Promise<void>;
}): Command {
  return defineCommand({
    ...definition,
    positionals: [{ name: id }],
    run: (context) => run(context, parsePositiveInteger(context.positionals[0], id, context.name)),
  });
}
