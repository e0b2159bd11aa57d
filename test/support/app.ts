import 'reflect-metadata';
import type express from 'express';
import type { Container } from 'inversify';
import { AuthenticateAccount } from '../../src/application/keys/authenticate-account';
import { IssueKey } from '../../src/application/keys/issue-key';
import type { AccountRepository } from '../../src/application/ports/account-repository';
import type { PasswordHasher } from '../../src/application/ports/password-hasher';
import type { NewPerson, PersonRepository } from '../../src/application/ports/person-repository';
import { TYPES } from '../../src/application/ports/tokens';
import { type Config, loadConfig } from '../../src/config';
import { APP, type ContainerOverrides, createContainer } from '../../src/container';
import type { Permission } from '../../src/domain/permission';
import type { Role } from '../../src/domain/person';
import { type AppOptions, createApp } from '../../src/http/app';
import type { Database } from '../../src/infrastructure/persistence/database';
import type { BackgroundErasurePurge } from '../../src/infrastructure/persistence/sql-erasure-purge';
import { openTestDatabase, type TestDatabaseTarget } from './databases';

export const TEST_PASSWORD = 'correct horse battery staple';

export interface TestAccount {
  personId: number;
  username: string;
  password: string;
}

export interface TestApp {
  app: express.Express;
  container: Container;
  database: Database;
  config: Config;
  close(): Promise<void>;
  /** An account (and its person) with read and write unless told otherwise. */
  createAccount(options?: {
    username?: string;
    password?: string;
    permissions?: Permission[];
    role?: Role;
  }): Promise<TestAccount>;
  /** A key for the account, signed in from 127.0.0.1; `body` takes the options of POST /keys. */
  issueToken(
    username: string,
    password: string,
    body?: { name?: string; permissions?: Permission[]; expires_in_days?: number },
  ): Promise<string>;
  /** A new account and a key with these permissions (default read and write). */
  tokenWith(permissions?: Permission[]): Promise<string>;
  /** Inserts people; returns the new ids, ascending (tests running one at a time per app). */
  addPeople(people: NewPerson[]): Promise<number[]>;
  /** Inserts one person, newPerson with these fields; returns its id. */
  addPerson(fields?: Partial<NewPerson>): Promise<number>;
}

let sequence = 0;

/** A name no other test of this process uses, so tests can find their own data. */
export function uniqueName(prefix = 'T'): string {
  sequence += 1;
  return `${prefix}${process.pid}x${sequence}x${Math.random().toString(36).slice(2, 8)}`;
}

/** A member with no contacts, memberships or ids; override what the test is about. */
export function newPerson(fields: Partial<NewPerson> = {}): NewPerson {
  return {
    role: 'member',
    firstName: uniqueName('First'),
    lastName: uniqueName('Last'),
    chatId: null,
    plannerId: null,
    contacts: [],
    memberships: [],
    ...fields,
  };
}

/** The app on a fresh test database, with cheap bcrypt and no logs. */
export async function createTestApp(
  target: TestDatabaseTarget,
  options: {
    env?: Record<string, string>;
    overrides?: ContainerOverrides;
    /** Options of the HTTP app (tests shorten a stream's stall timeout). */
    app?: AppOptions;
    /**
     * Runs on the container before the app is built, e.g. to rebind a port to a wrapper of the
     * real adapter: the routes resolve their use cases (and so their ports) once, when built.
     */
    prepare?: (container: Container) => void;
    /**
     * Another app's database (on `target`), with the data it holds, instead of a fresh one: for a
     * second configuration over the same data. That app closes it; this one's close() does not.
     */
    database?: Database;
  } = {},
): Promise<TestApp> {
  const config = loadConfig({ BCRYPT_COST: '4', LOG_LEVEL: 'silent', ...options.env });
  const database = options.database ?? (await openTestDatabase(target));
  const container = createContainer({ ...config, databaseUrl: target.url }, database, options.overrides);
  options.prepare?.(container);
  const app = createApp(container, options.app);

  const createAccount: TestApp['createAccount'] = async (account = {}) => {
    const username = account.username ?? uniqueName('user');
    const password = account.password ?? TEST_PASSWORD;
    const passwordHash = await container.get<PasswordHasher>(TYPES.PasswordHasher).hash(password);
    const created = await container.get<AccountRepository>(TYPES.AccountRepository).create({
      username,
      passwordHash,
      permissions: account.permissions ?? ['read', 'write'],
      firstName: uniqueName('Account'),
      lastName: uniqueName('Holder'),
      role: account.role ?? 'member',
    });
    return { personId: created.personId, username, password };
  };

  const issueToken: TestApp['issueToken'] = async (username, password, body = {}) => {
    const account = await container
      .get(AuthenticateAccount)
      .execute({ username, password, clientAddress: '127.0.0.1' });
    const { token } = await container.get(IssueKey).execute({
      accountId: account.personId,
      name: body.name ?? null,
      permissions: body.permissions ?? null,
      expiresInDays: body.expires_in_days ?? null,
    });
    return token;
  };

  const addPeople: TestApp['addPeople'] = async (people) => {
    const [{ max }] = await database.dataSource.query('SELECT coalesce(max(id), 0) AS max FROM people');
    await container.get<PersonRepository>(TYPES.PersonRepository).insertMany(people);
    const rows: { id: number }[] = await database.dataSource.query(
      'SELECT id FROM people WHERE id > $1 ORDER BY id',
      [max],
    );
    return rows.map((row) => Number(row.id));
  };

  return {
    app,
    container,
    database,
    config,
    // A purge left in the background by an erasure over HTTP ends before its database does.
    close: async () => {
      await container.get<BackgroundErasurePurge>(APP.BackgroundErasurePurge).stop();
      if (options.database === undefined) await database.close();
    },
    createAccount,
    issueToken,
    async tokenWith(permissions = ['read', 'write']) {
      const account = await createAccount({ permissions });
      return issueToken(account.username, account.password);
    },
    addPeople,
    async addPerson(fields) {
      const [id] = await addPeople([newPerson(fields)]);
      return id;
    },
  };
}
