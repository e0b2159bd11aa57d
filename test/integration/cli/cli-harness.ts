import type { Container } from 'inversify';
import type { NewPerson, PersonRepository } from '../../../src/application/ports/person-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../../src/cli/run-cli';
import type { ContainerOverrides } from '../../../src/container';
import type { Database } from '../../../src/infrastructure/persistence/database';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Runs the tool in-process on a test database, with cheap bcrypt, and captures its output. */
export async function cli(
  database: Database,
  argv: string[],
  options: {
    stdin?: string;
    env?: Record<string, string>;
    overrides?: ContainerOverrides;
    /** The container the test itself uses on `database`: the tool then runs in it (one per process). */
    container?: Container;
    ttyStderr?: boolean;
    /** Standard input is a terminal, as far as the tool can tell (what `stdin` holds is typed). */
    ttyStdin?: boolean;
    /** The process's umask while the tool runs (0o022, the usual one, leaves new files readable by all). */
    umask?: number;
  } = {},
): Promise<CliResult> {
  const stdout = capture();
  const stderr = capture();
  // A terminal, as far as the tool can tell: it then draws progress.
  if (options.ttyStderr) Object.assign(stderr.stream, { isTTY: true, columns: 100 });
  const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]);
  if (options.ttyStdin) Object.assign(stdin, { isTTY: true });
  const umask = options.umask === undefined ? undefined : process.umask(options.umask);
  const code = await runCli(argv, {
    database,
    stdin,
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { BCRYPT_COST: '4', LOG_LEVEL: 'silent', ...options.env },
    overrides: options.overrides,
    container: options.container,
  }).finally(() => {
    if (umask !== undefined) process.umask(umask);
  });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** How many people the database holds, admins included. */
export async function countPeople(database: Database): Promise<number> {
  const [{ count }] = await database.dataSource.query('SELECT count(*)::int AS count FROM people');
  return Number(count);
}

/** Inserts one person through the repository and answers its id. */
export async function addPerson(
  database: Database,
  container: Container,
  person: NewPerson,
): Promise<number> {
  await container.get<PersonRepository>(TYPES.PersonRepository).insertMany([person]);
  const [{ id }] = await database.dataSource.query('SELECT max(id) AS id FROM people');
  return Number(id);
}
