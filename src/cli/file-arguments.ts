import { resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { Command } from './command';
import { COMMANDS } from './commands';
import { parseCommandLine } from './parse-command-line';

/** The command the arguments select, or null when they select none (help, wrong usage). */
function commandOf(argv: string[]): Command | null {
  try {
    const invocation = parseCommandLine(argv, COMMANDS);
    return invocation.kind === 'run' ? invocation.command : null;
  } catch {
    return null;
  }
}

/**
 * The arguments with every FILE made absolute against the caller's directory, which is not this
 * process's when npm runs the tool (see callerDirectory). Anything that does not parse is left as
 * it is, for the command to report.
 */
export function resolveFileArguments(argv: string[], cwd: string): string[] {
  const command = commandOf(argv);
  if (command === null) return argv;
  const named = command.positionals.flatMap((p, index) => (p.name === 'FILE' ? [index] : []));
  if (named.length === 0) return argv;
  const options: ParseArgsConfig['options'] = {};
  for (const [option, spec] of Object.entries(command.options)) options[option] = { type: spec.type };
  const offset = command.path.length;
  const { tokens, values, positionals } = parseArgs({
    args: argv.slice(offset),
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const files = new Set(command.files ? command.files(values, positionals) : named);
  const resolved = [...argv];
  let position = 0;
  for (const token of tokens) {
    if (token.kind !== 'positional') continue;
    if (files.has(position)) resolved[offset + token.index] = resolve(cwd, token.value);
    position += 1;
  }
  return resolved;
}
