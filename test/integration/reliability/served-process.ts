import 'reflect-metadata';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { AuthenticateAccount } from '../../../src/application/keys/authenticate-account';
import { IssueKey } from '../../../src/application/keys/issue-key';
import type { AccountRepository } from '../../../src/application/ports/account-repository';
import type { PasswordHasher } from '../../../src/application/ports/password-hasher';
import type { PersonRepository } from '../../../src/application/ports/person-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import { loadConfig } from '../../../src/config';
import { createContainer } from '../../../src/container';
import { type Database, migrate, openDatabase } from '../../../src/infrastructure/persistence/database';
import { newPerson, TEST_PASSWORD, uniqueName } from '../../support/app';
import { copyMigratedDataDir, NODE_FLAGS } from '../../support/run-artifacts';

const ROOT = join(__dirname, '../../..');

export interface Seeded {
  token: string;
  personIds: number[];
}

/** Migrates the database the service will use, and gives it a writer's key and `people` people. */
export async function seedDirectory(
  options: { databaseUrl: string | null; dataDir?: string },
  people = 1,
): Promise<Seeded> {
  if (options.dataDir !== undefined && options.databaseUrl === null) {
    await copyMigratedDataDir(options.dataDir);
  }
  const database = await openDatabase(options);
  try {
    await migrate(database);
    const config = loadConfig({ BCRYPT_COST: '4', LOG_LEVEL: 'silent' });
    const container = createContainer(config, database);
    const username = uniqueName('shutdown');
    await container.get<AccountRepository>(TYPES.AccountRepository).create({
      username,
      passwordHash: await container.get<PasswordHasher>(TYPES.PasswordHasher).hash(TEST_PASSWORD),
      permissions: ['read', 'write'],
      firstName: 'Key',
      lastName: 'Holder',
    });
    const account = await container
      .get(AuthenticateAccount)
      .execute({ username, password: TEST_PASSWORD, clientAddress: '127.0.0.1' });
    const { token } = await container
      .get(IssueKey)
      .execute({ accountId: account.personId, name: null, permissions: null, expiresInDays: null });
    const seeded = Array.from({ length: people }, () => newPerson({ firstName: 'Original' }));
    await container.get<PersonRepository>(TYPES.PersonRepository).insertMany(seeded);
    const rows: { id: string }[] = await database.dataSource.query(
      'SELECT id FROM people WHERE first_name = $1 ORDER BY id',
      ['Original'],
    );
    return { token, personIds: rows.map((row) => Number(row.id)) };
  } finally {
    await database.close();
  }
}

/** Opens the database the service used, runs `read` on it and closes it again. */
export async function inspect<T>(
  options: { databaseUrl: string | null; dataDir?: string },
  read: (database: Database) => Promise<T>,
): Promise<T> {
  const database = await openDatabase(options);
  try {
    return await read(database);
  } finally {
    await database.close();
  }
}

export interface ServedProcess {
  child: ChildProcess;
  port: number;
  /** Every JSON line the service logged so far. */
  lines: Record<string, unknown>[];
  /** Resolves with the first logged line that satisfies `match`. */
  logged(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the compiled service on a free port and resolves once it listens. */
export function startService(main: string, env: Record<string, string>): Promise<ServedProcess> {
  const child = spawn(process.execPath, [...NODE_FLAGS, main], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', BCRYPT_COST: '4', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: {
    match: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  let stderr = '';
  let pending = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    for (const text of complete.filter(Boolean)) {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        line = { text };
      }
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.match(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // 'close', not 'exit': only then has everything the process wrote been read, its last log
    // line included ('exit' can come first, and a test reading `lines` then misses the end).
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const logged = (match: (line: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const found = lines.find(match);
      if (found) resolve(found);
      else waiters.push({ match, resolve });
    });

  return new Promise((resolve, reject) => {
    exited.then(({ code }) =>
      reject(new Error(`the service exited with ${code} before listening:\n${stderr}`)),
    );
    logged((line) => typeof line.port === 'number').then((line) =>
      resolve({ child, port: line.port as number, lines, logged, exited }),
    );
  });
}
