import { createWriteStream, readFileSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import request from 'supertest';
import { writeBackup } from '../../../src/infrastructure/persistence/backup/write-backup';
import { type Database, MIGRATIONS } from '../../../src/infrastructure/persistence/database';
import { createTestApp } from '../../support/app';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import { asRestored, backupPath, contentsOf, fill, heldRow, openEmptyDatabase } from './backup-support';

const pglite = testDatabases.find((target) => target.name === 'pglite');
const postgres = testDatabases.find((target) => target.name === 'postgres');

/**
 * The file's table and sequence lines: what two backups of the same directory share, once its
 * webhook subscriptions are as a restore leaves them (disabled).
 */
const body = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n').slice(1, -1).map(heldRow);

// Both databases in the run: the PostgreSQL stage alone (TEST_DATABASES=postgres) skips it.
(pglite && postgres ? describe : describe.skip)(
  'a backup moving between the embedded database and PostgreSQL',
  () => {
    const opened: Database[] = [];
    let receiver: Receiver;
    afterAll(async () => {
      for (const database of opened.reverse()) await database.close();
      await receiver?.close();
    });

    it('goes from PGlite to PostgreSQL and back with every row, sequence and cursor the same', async () => {
      if (!pglite || !postgres) return;
      receiver = await startReceiver();
      const original = await fill(pglite, receiver, 'across');
      opened.push(original.t.database);
      const expected = asRestored(await contentsOf(original.t.database));

      const fromPglite = backupPath();
      expect((await cli(original.t.database, ['backup', fromPglite])).code).toBe(0);
      const onPostgres = await openEmptyDatabase(postgres);
      opened.push(onPostgres);
      expect(await cli(onPostgres, ['restore', fromPglite])).toMatchObject({ code: 0, stderr: '' });
      expect(asRestored(await contentsOf(onPostgres))).toEqual(expected);

      const fromPostgres = backupPath();
      expect((await cli(onPostgres, ['backup', fromPostgres])).code).toBe(0);
      expect(body(fromPostgres)).toEqual(body(fromPglite));
      const back = await openEmptyDatabase(pglite);
      opened.push(back);
      expect(await cli(back, ['restore', fromPostgres])).toMatchObject({ code: 0, stderr: '' });
      expect(asRestored(await contentsOf(back))).toEqual(expected);

      const feed = `/changes?after=${original.cursor}`;
      const was = await request(original.t.app).get(feed).set('Authorization', `Bearer ${original.reader}`);
      for (const database of [onPostgres, back]) {
        const target = database === back ? pglite : postgres;
        const app = await createTestApp(target, { database });
        const is = await request(app.app).get(feed).set('Authorization', `Bearer ${original.reader}`);
        expect(is.status).toBe(200);
        expect(is.body).toEqual(was.body);
      }
    }, 120_000);
  },
);

describe.each(testDatabases)('a backup made at an older migration state, on $name', (target) => {
  const opened: Database[] = [];
  afterAll(async () => {
    for (const database of opened) await database.close();
  });

  it('is loaded at that state, and then the migrations it predates bring it up to date', async () => {
    // Back to before the subscriptions' cursors (1767744000000), however many migrations came
    // after: subscriptions still had after_seq, and the dispatcher its own table.
    const old = await openTestDatabase(target);
    opened.push(old);
    const last = async () =>
      (await old.dataSource.query('SELECT max(timestamp)::text AS last FROM migrations'))[0].last as string;
    while ((await last()) >= '1767744000000') await old.dataSource.undoLastMigration();
    const [person] = await old.dataSource.query(
      `INSERT INTO people (first_name, last_name, first_name_folded, last_name_folded)
       VALUES ('Ada', 'Older', 'ada', 'older') RETURNING id`,
    );
    await old.dataSource.query(
      "INSERT INTO changes (seq, type, person_id) VALUES (nextval('changes_seq'), 'person.created', $1)",
      [person.id],
    );
    await old.dataSource.query(
      "INSERT INTO webhook_subscriptions (url, secret, after_seq) VALUES ('http://127.0.0.1:9/hooks', 'whsec_old', 0)",
    );
    await old.dataSource.query('UPDATE webhook_dispatcher SET last_seq = 1');
    // As an older version's `backup` wrote it: this code's own command would migrate first.
    const file = backupPath();
    const out = createWriteStream(file);
    const { header } = await writeBackup(old, out);
    out.end();
    await finished(out);
    const cursors = MIGRATIONS.findIndex(
      (migration) => migration.name === 'WebhookSubscriptionCursors1767744000000',
    );
    expect(header.migrations).toEqual(MIGRATIONS.slice(0, cursors).map((migration) => migration.name));

    const restored = await openEmptyDatabase(target);
    opened.push(restored);
    const result = await cli(restored, ['restore', file]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const later = MIGRATIONS.slice(cursors).map((migration) => migration.name);
    expect(result.stdout).toMatch(
      new RegExp(
        `\nbrought it up to date: applied ${later.join(', ')}\nwebhook subscription \\d+ \\(http://127\\.0\\.0\\.1:9/hooks\\) starts disabled, .*: npm run cli -- webhooks enable \\d+\n$`,
      ),
    );
    const migrations: { name: string }[] = await restored.dataSource.query(
      'SELECT name FROM migrations ORDER BY id',
    );
    expect(migrations.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
    // The migration turned the restored dispatcher's position into the subscription's own.
    expect(
      await restored.dataSource.query('SELECT secret, sent_seq::int AS sent_seq FROM webhook_subscriptions'),
    ).toEqual([{ secret: 'whsec_old', sent_seq: 1 }]);
    expect(await restored.dataSource.query('SELECT first_name FROM people')).toEqual([{ first_name: 'Ada' }]);
  }, 60_000);
});
