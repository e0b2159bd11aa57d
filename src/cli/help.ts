import { type Command, optionUsage } from './command';

export const TOOL = 'npm run cli --';

function commandLine(command: Command): string {
  return [TOOL, ...command.path, command.usage].filter((part) => part !== '').join(' ');
}

function list(commands: Command[]): string[] {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  return commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
}

export function toolHelp(commands: Command[]): string {
  return [
    `Usage: ${TOOL} <command> [options]`,
    '',
    'Runs the membership directory: accounts, import and export, erasure, webhooks, demo data, migrations.',
    '',
    'Commands:',
    ...list(commands),
    '',
    `Help on a command: ${TOOL} <command> --help`,
    `The version of this build: ${TOOL} --version`,
    'Settings come from the environment (DATABASE_URL, DATA_DIR, BCRYPT_COST, DIRECTORY_TIMEZONE...).',
    'Exit codes: 0 success, 1 failure (with a one-line reason), 2 wrong usage.',
    '',
  ].join('\n');
}

export function groupHelp(group: string, commands: Command[]): string {
  return [
    `Usage: ${TOOL} ${group} <command> [options]`,
    '',
    'Commands:',
    ...list(commands),
    '',
    `Help on a command: ${TOOL} ${group} <command> --help`,
    '',
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const options = Object.entries(command.options).map(([name, spec]) => [
    optionUsage(name, spec),
    spec.description,
  ]);
  options.push(['--help', 'show this help']);
  const width = Math.max(...options.map(([left]) => left.length));
  return [
    `Usage: ${commandLine(command)}`,
    '',
    command.description,
    '',
    'Options:',
    ...options.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`),
    '',
  ].join('\n');
}
