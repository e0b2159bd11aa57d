import { CliFailure, UsageError } from './cli-errors';
import type { CliInput, CliIo } from './cli-io';

/**
 * The password for an account: from the variable named by --password-env, or the first line of
 * standard input, or, at a terminal, typed twice without echo. Never from an argument, which
 * would end up in the shell history and in the process list.
 */
export async function readPassword(io: CliIo, passwordEnv: string | undefined): Promise<string> {
  if (passwordEnv !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(passwordEnv)) {
      throw new UsageError(`--password-env takes the name of an environment variable, not "${passwordEnv}"`);
    }
    const value = io.env[passwordEnv];
    if (value === undefined || value === '') {
      throw new CliFailure(`the environment variable ${passwordEnv} is not set or is empty`);
    }
    return value;
  }
  if (io.stdin.isTTY && typeof io.stdin.setRawMode === 'function') {
    const first = await promptHidden(io, 'Password: ');
    const second = await promptHidden(io, 'Repeat the password: ');
    if (first !== second) throw new CliFailure('the two passwords differ');
    return first;
  }
  const line = await firstLine(io.stdin);
  if (line === '') {
    throw new CliFailure(
      'no password: give it on the first line of standard input or with --password-env VAR',
    );
  }
  return line;
}

async function firstLine(stream: CliInput): Promise<string> {
  let buffer = '';
  for await (const chunk of stream) {
    buffer += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    const end = buffer.indexOf('\n');
    if (end >= 0) return buffer.slice(0, end).replace(/\r$/, '');
  }
  return buffer.replace(/\r$/, '');
}

function promptHidden(io: CliIo, prompt: string): Promise<string> {
  const { stdin, stderr } = io;
  stderr.write(prompt);
  stdin.setRawMode?.(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (character === '\u0003' || character === '\u0004') {
          finish();
          reject(new CliFailure('cancelled'));
          return;
        }
        if (character === '\u007f' || character === '\b') value = value.slice(0, -1);
        else value += character;
      }
    };
    stdin.on('data', onData);
  });
}
