import { PassThrough, Readable } from 'node:stream';
import { CliFailure, UsageError } from '../../../src/cli/cli-errors';
import type { CliIo } from '../../../src/cli/cli-io';
import { readPassword } from '../../../src/cli/read-password';

function io(stdin: string[], env: Record<string, string> = {}): CliIo {
  return { stdin: Readable.from(stdin), stdout: new PassThrough(), stderr: new PassThrough(), env };
}

describe('readPassword', () => {
  it('reads the first line of standard input, without its line ending', async () => {
    expect(await readPassword(io(['secret pass\r\nsecond line\n']), undefined)).toBe('secret pass');
    expect(await readPassword(io(['sec', 'ret', ' pass\n', 'more']), undefined)).toBe('secret pass');
    expect(await readPassword(io(['no newline at the end']), undefined)).toBe('no newline at the end');
  });

  it('reads the variable named by --password-env', async () => {
    expect(await readPassword(io([], { MY_PASS: 'from the env' }), 'MY_PASS')).toBe('from the env');
  });

  it('fails with a reason when the variable is unset or empty, or stdin is empty', async () => {
    await expect(readPassword(io([], {}), 'MISSING')).rejects.toThrow(
      new CliFailure('the environment variable MISSING is not set or is empty'),
    );
    await expect(readPassword(io([], { EMPTY: '' }), 'EMPTY')).rejects.toThrow(CliFailure);
    await expect(readPassword(io(['\n']), undefined)).rejects.toThrow(/no password/);
  });

  it('takes only the name of a variable', async () => {
    await expect(readPassword(io([]), 'hunter2 is my password')).rejects.toThrow(UsageError);
  });

  it('asks twice without echo at a terminal', async () => {
    const stdin = new PassThrough() as PassThrough & { isTTY: boolean; setRawMode: (m: boolean) => void };
    const modes: boolean[] = [];
    stdin.isTTY = true;
    stdin.setRawMode = (mode) => modes.push(mode);
    const stderr = new PassThrough();
    let prompts = '';
    stderr.on('data', (chunk) => {
      prompts += chunk;
    });

    const password = readPassword({ stdin, stdout: new PassThrough(), stderr, env: {} }, undefined);
    stdin.write('secrex\u007ft pass\r');
    await new Promise((resolve) => setImmediate(resolve));
    stdin.write('secret pass\r');

    expect(await password).toBe('secret pass');
    expect(prompts).toBe('Password: \nRepeat the password: \n');
    expect(modes).toEqual([true, false, true, false]);
  });
});
