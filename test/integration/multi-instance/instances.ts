import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type express from 'express';
import type { Container } from 'inversify';
import { createClient } from 'redis';
import { AuthenticateAccount } from '../../../src/application/keys/authenticate-account';
import { IssueKey } from '../../../src/application/keys/issue-key';
import type { AccountRepository } from '../../../src/application/ports/account-repository';
import type { PasswordHasher } from '../../../src/application/ports/password-hasher';
import { TYPES } from '../../../src/application/ports/tokens';
import { loadConfig } from '../../../src/config';
import {
  APP,
  type ContainerOverrides,
  closeConnections,
  createContainer,
  startConnections,
} from '../../../src/container';
import type { Permission } from '../../../src/domain/permission';
import { createApp } from '../../../src/http/app';
import { type Database, openDatabase } from '../../../src/infrastructure/persistence/database';
import type { KeyEventsListener } from '../../../src/infrastructure/credentials/key-events-listener';
import { TEST_PASSWORD, uniqueName } from '../../support/app';

/** The Redis of the Redis-backed tests; they are skipped without it. */
export const redisUrl = process.env.TEST_REDIS_URL?.trim() || null;

/** Runs the block only when TEST_REDIS_URL is set. */
export const describeWithRedis = redisUrl === null ? describe.skip : describe;

/** A prefix of this run's own, so that runs sharing one Redis never count each other's keys. */
export function uniqueRedisPrefix(): string {
  return `test:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/** Deletes every Redis key under `prefix`. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) {
      if (keys.length > 0) await client.del(keys);
    }
  } finally {
    await client.close();
  }
}

/** The Redis keys under `prefix`. */
export async function redisKeys(url: string, prefix: string): Promise<string[]> {
  const client = createClient({ url });
  await client.connect();
  try {
    return await client.keys(`${prefix}*`);
  } finally {
    await client.close();
  }
}

/** Another pool on the PostgreSQL schema `database` uses: what a second process would open. */
export async function openSameSchema(database: Database, databaseUrl: string): Promise<Database> {
  const [{ schema }] = await database.dataSource.query('SELECT current_schema() AS schema');
  return openDatabase({ databaseUrl, schema });
}

export interface Instance {
  app: express.Express;
  container: Container;
  /** Resolves once the instance hears other instances' revocations. */
  listening(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One instance of the service as main.ts builds it (connections started), on `database`, without
 * a port: supertest drives the app. Bcrypt is cheap and logs are off unless `env` says otherwise.
 */
export async function startInstance(
  database: Database,
  databaseUrl: string | null,
  options: { env?: Record<string, string>; redisKeyPrefix?: string; overrides?: ContainerOverrides } = {},
): Promise<Instance> {
  const config = loadConfig({ BCRYPT_COST: '4', LOG_LEVEL: 'silent', ...options.env });
  const container = createContainer({ ...config, databaseUrl }, database, {
    redisKeyPrefix: options.redisKeyPrefix,
    ...options.overrides,
  });
  await startConnections(container);
  return {
    app: createApp(container),
    container,
    listening: async () => {
      const listener = container.get<KeyEventsListener | null>(APP.KeyEvents);
      await waitFor(() => listener === null || listener.listening, 5000);
    },
    close: () => closeConnections(container),
  };
}

/** Polls `condition` every few milliseconds; resolves with the milliseconds it took. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface KeyHolder {
  username: string;
  password: string;
  personId: number;
  token: string;
}

/**
 * An account with `permissions` and a key for it, signed in from an address of its
 * own, so that the login throttle's per-address count of one test never reaches another.
 */
export async function accountWithKey(
  container: Container,
  permissions: Permission[] = ['read', 'write'],
): Promise<KeyHolder> {
  const username = uniqueName('holder');
  const passwordHash = await container.get<PasswordHasher>(TYPES.PasswordHasher).hash(TEST_PASSWORD);
  const account = await container.get<AccountRepository>(TYPES.AccountRepository).create({
    username,
    passwordHash,
    permissions,
    firstName: uniqueName('Key'),
    lastName: uniqueName('Holder'),
    role: 'member',
  });
  await container
    .get(AuthenticateAccount)
    .execute({ username, password: TEST_PASSWORD, clientAddress: uniqueAddress() });
  const { token } = await container
    .get(IssueKey)
    .execute({ accountId: account.personId, name: null, permissions: null, expiresInDays: null });
  return { username, password: TEST_PASSWORD, personId: account.personId, token };
}

let addressSequence = 0;

/** A documentation address (RFC 5737) no other test of this process uses. */
export function uniqueAddress(): string {
  addressSequence += 1;
  return `198.51.${Math.floor(addressSequence / 250) % 250}.${(addressSequence % 250) + 1}`;
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
