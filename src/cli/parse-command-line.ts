import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './cli-errors';
import type { Command } from './command';
import { VERSION } from '../version';
import { commandHelp, groupHelp, toolHelp } from './help';

export type Invocation =
  | { kind: 'help'; text: string }
  | {
      kind: 'run';
      command: Command;
      values: Record<string, string | boolean | undefined>;
      positionals: string[];
    };

const HELP_FLAGS = ['--help', '-h'];
const VERSION_FLAGS = ['--version', '-V'];

function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => HELP_FLAGS.includes(a));
}

/** Finds the command and checks its arguments strictly; anything wrong is a UsageError. */
export function parseCommandLine(argv: string[], commands: Command[]): Invocation {
  const [first, second] = argv;
  if (first === undefined) throw new UsageError('no command given');
  if (HELP_FLAGS.includes(first) || first === 'help') return { kind: 'help', text: toolHelp(commands) };
  // Printed like help (standard output, exit 0): what an operator asks before and after an upgrade.
  if (VERSION_FLAGS.includes(first)) return { kind: 'help', text: `${VERSION}\n` };

  const group = commands.filter((c) => c.path[0] === first);
  if (group.length === 0) throw new UsageError(`unknown command "${first}"`);
  let command = group.find((c) => c.path.length === 1);
  if (command === undefined) {
    if (second === undefined) throw new UsageError(`${first} needs a command: ${names(group)}`, first);
    if (HELP_FLAGS.includes(second) || second === 'help')
      return { kind: 'help', text: groupHelp(first, group) };
    command = group.find((c) => c.path[1] === second);
    if (command === undefined)
      throw new UsageError(`unknown command "${first} ${second}"; try ${names(group)}`, first);
  }
  const args = argv.slice(command.path.length);
  if (wantsHelp(args)) return { kind: 'help', text: commandHelp(command) };
  return { kind: 'run', command, ...parseArguments(command, args) };
}

function names(group: Command[]): string {
  return group.map((c) => c.path[c.path.length - 1]).join(', ');
}

function parseArguments(command: Command, args: string[]) {
  const name = command.path.join(' ');
  const options: ParseArgsConfig['options'] = {};
  for (const [option, spec] of Object.entries(command.options)) options[option] = { type: spec.type };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(describeParseError(error as Error), name);
  }
  const required = command.positionals.filter((p) => !p.optional);
  const { positionals } = parsed;
  if (positionals.length < required.length) {
    const missing = required.slice(positionals.length).map((p) => p.name);
    throw new UsageError(`missing ${missing.join(' and ')}`, name);
  }
  if (positionals.length > command.positionals.length) {
    throw new UsageError(`unexpected argument "${positionals[command.positionals.length]}"`, name);
  }
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals };
}

/** Node's messages, made short: the reason in a line, without its advice about "--". */
function describeParseError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  const option = /'(-[^' ]+)/.exec(error.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    return /argument missing/.test(error.message)
      ? `option ${option} needs a value`
      : `option ${option} does not take a value`;
  }
  return error.message.split('. ')[0];
}
