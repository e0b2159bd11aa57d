import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BACKUP_SEQUENCES,
  BACKUP_TABLES,
  quoted,
  relationsSql,
  SEQUENCE_KINDS,
  TABLE_KINDS,
} from '../../../src/infrastructure/persistence/backup/backup-format';
import { type Database, openDatabase } from '../../../src/infrastructure/persistence/database';
import { RESTORED_REASON } from '../../../src/infrastructure/persistence/backup/hold-webhooks';
import request from 'supertest';
import { closeConnections, startConnections } from '../../../src/container';
import { HttpWebhookSender } from '../../../src/infrastructure/webhooks/http-webhook-sender';
import { createTestApp, type TestApp } from '../../support/app';
import type { TestDatabaseTarget } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { personRecord, tempFile } from '../cli/import-files';
import { waitFor } from '../multi-instance/instances';
import type { Receiver } from '../webhooks/receiver';
import { openEmptyPglite } from '../../support/pglite-snapshot';

let files = 0;
const directory = mkdtempSync(join(tmpdir(), 'backup-test-'));
// Each test file has its own copy of this module, and so its own directory, gone after its tests.
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A path in the file's temporary directory, not yet used. */
export function backupPath(name = 'directory.backup'): string {
  files += 1;
  return join(directory, `${files}-${name}`);
}

/** A database with nothing in it, as restore wants: PGlite in memory, or a new PostgreSQL schema. */
export async function openEmptyDatabase(target: TestDatabaseTarget): Promise<Database> {
  if (target.url === null) return openEmptyPglite();
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const database = await openDatabase({ databaseUrl: target.url, schema });
  return {
    ...database,
    async close() {
      try {
        await database.dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await database.close();
      }
    },
  };
}

/**
 * Every row of every table the backup knows, as row_to_json writes it in UTC, in key order, and
 * every sequence's position: what must be the same after a restore.
 */
export async function contentsOf(database: Database): Promise<Record<string, string[]>> {
  return database.dataSource.transaction('REPEATABLE READ', async (manager) => {
    await manager.query("SET LOCAL TimeZone = 'UTC'");
    const present = ((await manager.query(relationsSql(TABLE_KINDS))) as { name: string }[]).map(
      (row) => row.name,
    );
    const contents: Record<string, string[]> = {};
    for (const { name, key } of BACKUP_TABLES.filter((table) => present.includes(table.name))) {
      const rows: { line: string }[] = await manager.query(
        `SELECT row_to_json(t)::text AS line FROM ${quoted(name)} t ORDER BY t.${quoted(key)}`,
      );
      contents[name] = rows.map((row) => row.line);
    }
    const sequences = ((await manager.query(relationsSql(SEQUENCE_KINDS))) as { name: string }[]).map(
      (row) => row.name,
    );
    for (const name of BACKUP_SEQUENCES.filter((sequence) => sequences.includes(sequence))) {
      const [row]: { line: string }[] = await manager.query(
        `SELECT last_value::text || ' ' || is_called::text AS line FROM ${quoted(name)}`,
      );
      contents[`sequence ${name}`] = [row.line];
    }
    return contents;
  });
}

/**
 * `contentsOf` with each webhook subscription as a restore leaves it: disabled, whenever that was
 * (SPEC §5: a copy calls no receiver until told), its lease gone. One disabled in the original
 * keeps its own time and reason. Both sides of a comparison go through it.
 */
export function asRestored(contents: Record<string, string[]>): Record<string, string[]> {
  return { ...contents, webhook_subscriptions: (contents.webhook_subscriptions ?? []).map(heldRow) };
}

/** A webhook subscription's row (row_to_json) as a restore leaves it; any other line as it is. */
export function heldRow(line: string): string {
  if (!line.startsWith('{') || !line.includes('"sent_seq"')) return line;
  const row = JSON.parse(line);
  if (row.disabled_at !== null && row.disabled_reason !== RESTORED_REASON) return line;
  return JSON.stringify({
    ...row,
    disabled_at: 'when restored',
    disabled_reason: RESTORED_REASON,
    lease_until: null,
  });
}

/** The tables of the current schema that any migration makes: none in an empty database. */
export async function directoryTables(database: Database): Promise<string[]> {
  const rows: { name: string }[] = await database.dataSource.query(relationsSql(TABLE_KINDS));
  const listed = BACKUP_TABLES.map((table) => table.name);
  return rows.map((row) => row.name).filter((name) => listed.includes(name));
}

export const WEBHOOK_OVERRIDES = { webhookPollMs: 25, webhookSender: new HttpWebhookSender(2000) };

export interface Filled {
  t: TestApp;
  reader: string;
  writer: string;
  /** Taken from the feed before the backup, after the first few changes. */
  cursor: string;
  subscription: { id: number; secret: string };
  people: number[];
}

/**
 * A directory with something in every table: people with contacts and memberships (imported:
 * audited, in the feed), accounts and keys, updates and an erasure, a webhook subscription whose
 * deliveries have been sent (and their attempts recorded). Its jobs are stopped once it is full,
 * so that it stays as the backup finds it.
 */
export async function fill(target: TestDatabaseTarget, receiver: Receiver, tag: string): Promise<Filled> {
  const t = await createTestApp(target, { overrides: WEBHOOK_OVERRIDES });
  const tool = (argv: string[], env: Record<string, string> = {}) => cli(t.database, argv, { env });
  const added = await tool(['webhooks', 'add', receiver.url]);
  expect(added.code).toBe(0);
  const subscription = {
    id: Number(/^id: (\d+)$/m.exec(added.stdout)?.[1]),
    secret: /^secret: (whsec_\S+)$/m.exec(added.stdout)?.[1] ?? '',
  };
  const records = Array.from({ length: 6 }, (_, i) => personRecord(tag, i));
  expect((await tool(['import', tempFile(records)])).code).toBe(0);
  expect(
    (
      await tool(
        [
          'accounts',
          'create',
          '--username',
          `keeper-${tag}`,
          '--permissions',
          'read',
          '--password-env',
          'PW',
        ],
        {
          PW: 'a long password',
        },
      )
    ).code,
  ).toBe(0);
  const reader = await t.tokenWith(['read']);
  const writer = await t.tokenWith(['read', 'write']);
  const people: number[] = (
    await request(t.app).get('/people?limit=100').set('Authorization', `Bearer ${reader}`)
  ).body.map((person: { id: number }) => person.id);
  const cursor = (await request(t.app).get('/changes?limit=3').set('Authorization', `Bearer ${reader}`)).body
    .cursor;
  await startConnections(t.container);
  for (const id of people.slice(0, 3)) {
    const res = await request(t.app)
      .patch(`/people/${id}`)
      .set('Authorization', `Bearer ${writer}`)
      .send({ 'person[first_name]': `Renamed${id}` });
    expect(res.status).toBe(200);
  }
  expect((await tool(['people', 'erase', String(people[5]), '--yes'])).code).toBe(0);
  await waitFor(async () => {
    const [row] = await t.database.dataSource.query(
      `SELECT (SELECT sent_seq FROM webhook_subscriptions WHERE id = $1) = (SELECT max(seq) FROM changes)
              AND NOT EXISTS (SELECT FROM webhook_deliveries WHERE status <> 'delivered') AS done`,
      [subscription.id],
    );
    return row.done;
  }, 20_000);
  await closeConnections(t.container);
  return { t, reader, writer, cursor, subscription, people };
}
