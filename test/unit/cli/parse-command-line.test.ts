import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../../src/cli/cli-errors';
import { COMMANDS } from '../../../src/cli/commands';
import { parseCommandLine } from '../../../src/cli/parse-command-line';

function usageErrorOf(argv: string[]): UsageError {
  try {
    parseCommandLine(argv, COMMANDS);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('parseCommandLine', () => {
  it('finds a command with its options and positionals', () => {
    const invocation = parseCommandLine(
      ['accounts', 'create', '--username', 'bot', '--permissions', '', '--admin'],
      COMMANDS,
    );
    expect(invocation).toMatchObject({
      kind: 'run',
      command: { path: ['accounts', 'create'] },
      values: { username: 'bot', permissions: '', admin: true },
      positionals: [],
    });
    expect(parseCommandLine(['accounts', 'grant', 'bot', 'read'], COMMANDS)).toMatchObject({
      positionals: ['bot', 'read'],
    });
    expect(parseCommandLine(['export'], COMMANDS)).toMatchObject({ kind: 'run', positionals: [] });
  });

  it('answers --version (or -V) with the release package.json names, as help is answered', () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));
    expect(parseCommandLine(['--version'], COMMANDS)).toEqual({ kind: 'help', text: `${version}\n` });
    expect(parseCommandLine(['-V'], COMMANDS)).toEqual({ kind: 'help', text: `${version}\n` });
  });

  it('answers help for the tool, a group and every command', () => {
    expect(parseCommandLine(['--help'], COMMANDS)).toMatchObject({
      kind: 'help',
      text: expect.stringContaining('accounts create'),
    });
    expect(parseCommandLine(['accounts', '--help'], COMMANDS)).toMatchObject({
      kind: 'help',
      text: expect.stringContaining('npm run cli -- accounts <command>'),
    });
    for (const command of COMMANDS) {
      const invocation = parseCommandLine([...command.path, '--help'], COMMANDS);
      expect(invocation).toMatchObject({
        kind: 'help',
        text: expect.stringContaining(`npm run cli -- ${command.path.join(' ')}`),
      });
    }
  });

  it('gives help even when the rest of the line is wrong', () => {
    expect(parseCommandLine(['import', '--bogus', '-h'], COMMANDS)).toMatchObject({ kind: 'help' });
  });

  it.each([
    [[], 'no command given', ''],
    [['frobnicate'], 'unknown command "frobnicate"', ''],
    [
      ['accounts'],
      'accounts needs a command: create, grant, revoke, password, disable, enable, list',
      'accounts',
    ],
    [['accounts', 'delete'], 'unknown command "accounts delete"', 'accounts'],
    [['accounts', 'create', '--bogus'], 'unknown option --bogus', 'accounts create'],
    [['accounts', 'create', '--username'], 'option --username needs a value', 'accounts create'],
    [['accounts', 'list', '--json=yes'], 'option --json does not take a value', 'accounts list'],
    [['accounts', 'grant', 'bot'], 'missing PERM', 'accounts grant'],
    [['accounts', 'grant'], 'missing U and PERM', 'accounts grant'],
    [['import'], 'missing FILE', 'import'],
    [['export', 'a.json', 'b.json'], 'unexpected argument "b.json"', 'export'],
    [['accounts', 'password', 'bot', 'hunter22'], 'unexpected argument "hunter22"', 'accounts password'],
  ])('refuses %j: %s', (argv, message, command) => {
    const error = usageErrorOf(argv as string[]);
    expect(error.message.startsWith(message)).toBe(true);
    expect(error.command).toBe(command);
  });
});
