import { readFileSync, statSync, writeFileSync } from 'node:fs';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { APP, closeConnections, startConnections } from '../../../src/container';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { waitFor } from '../multi-instance/instances';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import {
  asRestored,
  backupPath,
  contentsOf,
  directoryTables,
  type Filled,
  fill,
  openEmptyDatabase,
  WEBHOOK_OVERRIDES,
} from './backup-support';

describe.each(testDatabases)('backup and restore on $name', (target) => {
  let receiver: Receiver;
  let original: Filled;
  let file: string;
  let restored: Database;
  let copy: TestApp;
  const opened: Database[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    original = await fill(target, receiver, 'orig');
    file = backupPath();
    const backup = await cli(original.t.database, ['backup', file]);
    expect(backup).toMatchObject({ code: 0, stderr: '' });
    expect(backup.stdout).toMatch(new RegExp(`^backed up 9 people and [\\d,]+ other rows to ${file}\\n$`));
    restored = await openEmptyDatabase(target);
    const restore = await cli(restored, ['restore', file]);
    expect(restore).toMatchObject({ code: 0, stderr: '' });
    expect(restore.stdout).toMatch(
      /^restored 9 people and [\d,]+ other rows from .* \(a backup of .* made 20\d\d-/,
    );
    const { id } = original.subscription;
    expect(restore.stdout.split('\n').slice(1)).toEqual([
      `webhook subscription ${id} (${receiver.url}) starts disabled, so that this copy calls no receiver; resume it with: npm run cli -- webhooks enable ${id}`,
      '',
    ]);
    copy = await createTestApp(target, { database: restored, overrides: WEBHOOK_OVERRIDES });
  }, 120_000);

  afterAll(async () => {
    await closeConnections(copy?.container).catch(() => undefined);
    for (const database of opened) await database.close();
    await restored?.close();
    await original?.t.close();
    await receiver?.close();
  });

  const get = (app: TestApp, path: string, token = original.reader) =>
    request(app.app).get(path).set('Authorization', `Bearer ${token}`);

  it('writes one file only its owner can read', () => {
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0])).toMatchObject({
      format: 'membership-directory-backup',
      version: 1,
      database: target.name,
    });
    expect(JSON.parse(lines[lines.length - 1])[0]).toBe('end');
  });

  it('restores every table row for row, and every sequence where it stood, its webhook subscriptions disabled', async () => {
    const before = await contentsOf(original.t.database);
    expect(before.people.length).toBe(9);
    for (const table of [
      'contacts',
      'memberships',
      'api_keys',
      'audit_entries',
      'changes',
      'webhook_attempts',
    ])
      expect(before[table].length).toBeGreaterThan(0);
    expect(asRestored(await contentsOf(restored))).toEqual(asRestored(before));
    const [subscription] = await restored.dataSource.query(
      'SELECT disabled_at, disabled_reason FROM webhook_subscriptions',
    );
    expect(subscription).toEqual({
      disabled_at: expect.any(Date),
      disabled_reason: 'restored from a backup',
    });
  });

  it('answers as the original did: the same people, and the feed from a cursor taken before the backup', async () => {
    for (const path of [
      '/people?limit=100',
      `/people/${original.people[0]}`,
      `/changes?after=${original.cursor}`,
    ]) {
      const [was, is] = [await get(original.t, path), await get(copy, path)];
      expect(is.status).toBe(200);
      expect(is.body).toEqual(was.body);
    }
  });

  it("goes on with the original's keys, ids and change seqs", async () => {
    const patch = (app: TestApp) =>
      request(app.app)
        .patch(`/people/${original.people[1]}`)
        .set('Authorization', `Bearer ${original.writer}`)
        .send({ 'person[last_name]': 'Continued' });
    const next = async (app: TestApp) => {
      const res = await patch(app);
      expect(res.status).toBe(200);
      const feed = await get(app, `/changes?after=${original.cursor}&limit=1000`);
      return { person: await app.addPerson(), seq: feed.body.changes.at(-1).seq };
    };
    expect(await next(copy)).toEqual(await next(original.t));
  });

  it('calls no receiver until `webhooks enable`, then delivers to the subscription, signed with its secret', async () => {
    const seen = receiver.received.length;
    await startConnections(copy.container);
    const res = await request(copy.app)
      .patch(`/people/${original.people[2]}`)
      .set('Authorization', `Bearer ${original.writer}`)
      .send({ 'person[first_name]': 'Delivered' });
    expect(res.status).toBe(200);
    const runner = copy.container.get<{ wake(): void }>(APP.WebhookRunner);
    runner.wake();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(seen);
    const enabled = await cli(copy.database, ['webhooks', 'enable', String(original.subscription.id)]);
    expect(enabled).toMatchObject({ code: 0, stderr: '' });
    runner.wake();
    const verified = () =>
      receiver.received
        .slice(seen)
        .map((message) => new Webhook(original.subscription.secret).verify(message.body, message.headers));
    await waitFor(
      () => verified().some((payload) => (payload as { person_id: number }).person_id === original.people[2]),
      10_000,
    );
    expect(verified()).toContainEqual(
      expect.objectContaining({ type: 'person.updated', person_id: original.people[2] }),
    );
    await closeConnections(copy.container);
  });

  it('refuses to restore into a database that holds a directory, and changes nothing there', async () => {
    const before = await contentsOf(copy.database);
    const result = await cli(copy.database, ['restore', file]);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot restore ${file}: the database already holds a directory; restore loads a backup only into an empty one\n`,
    });
    expect(await contentsOf(copy.database)).toEqual(before);
  });

  describe('refuses a file that is not a whole backup, leaving the database empty', () => {
    const refused = async (text: string) => {
      const empty = await openEmptyDatabase(target);
      opened.push(empty);
      const damaged = backupPath();
      writeFileSync(damaged, text);
      const result = await cli(empty, ['restore', damaged]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(await directoryTables(empty)).toEqual([]);
      return result.stderr.replace(damaged, 'FILE');
    };
    const lines = () => readFileSync(file, 'utf8').split('\n');

    it('cut short', async () => {
      const text = lines().slice(0, -2).join('\n');
      expect(await refused(`${text}\n`)).toMatch(
        /^error: cannot restore FILE: it is cut short: it ends at line \d+/,
      );
    });

    it('changed after it was written', async () => {
      const text = readFileSync(file, 'utf8').replace('Renamed', 'Renamex');
      expect(await refused(text)).toBe(
        'error: cannot restore FILE: it has been changed or damaged since it was written (its checksum does not match)\n',
      );
    });

    it('an export, not a backup', async () => {
      expect(await refused('[\n{"first_name":"A","last_name":"B"}\n]\n')).toBe(
        'error: cannot restore FILE: it is not a backup made by `backup` (its first line is no backup header)\n',
      );
    });

    it('made by a newer version of the directory', async () => {
      const [header, ...rest] = lines();
      const newer = {
        ...JSON.parse(header),
        migrations: [...JSON.parse(header).migrations, 'Future1999999999999'],
      };
      expect(await refused([JSON.stringify(newer), ...rest].join('\n'))).toBe(
        'error: cannot restore FILE: it was made by a newer version of the directory (its migration Future1999999999999 is unknown here): restore it with that version or a newer one\n',
      );
      const later = { ...JSON.parse(header), version: 2 };
      expect(await refused([JSON.stringify(later), ...rest].join('\n'))).toMatch(
        /^error: cannot restore FILE: it is a backup of format version 2, newer than this tool reads \(1\)/,
      );
    });
  });
});
