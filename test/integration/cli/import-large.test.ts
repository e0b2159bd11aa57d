import type { Database } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { cli, countPeople } from './cli-harness';
import { personRecord, tempFile, tempPath } from './import-files';

// Five batches of a thousand: the smallest file the tool draws progress for (src/cli/progress.ts,
// 5,000 records), and a round trip through more than one batch. The 100,000 people of SPEC §6 are
// the bench's (npm run bench, scripts/bench/sync-run.ts): it imports them, re-imports their export
// with 1% changed and checks that exactly those are updated.
const PEOPLE = 5_000;

describe.each(testDatabases)('a large import on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** What any write would change: rows, versions, the audit and the feed. */
  const footprint = async () =>
    database.dataSource.query(`
      SELECT (SELECT count(*) FROM people) AS people, (SELECT sum(version) FROM people) AS versions,
             (SELECT max(updated_at) FROM people) AS updated, (SELECT count(*) FROM contacts) AS contacts,
             (SELECT max(id) FROM contacts) AS contact_ids, (SELECT count(*) FROM memberships) AS memberships,
             (SELECT max(id) FROM memberships) AS membership_ids, (SELECT count(*) FROM audit_entries) AS audit,
             (SELECT count(*) FROM changes) AS changes`);

  it('imports 5,000 people with progress on a terminal, and importing their export changes nothing', async () => {
    const path = tempFile(Array.from({ length: PEOPLE }, (_, i) => personRecord('large', i)));

    const result = await cli(database, ['import', path], { ttyStderr: true });

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^imported \\S+: ${PEOPLE} added, 0 updated, 0 unchanged, 0 erased`),
    );
    expect(result.stderr).toContain(`checked ${PEOPLE} records`);
    expect(result.stderr).toMatch(/importing \[.*\] \d+%/);
    expect(await countPeople(database)).toBe(PEOPLE);
    // Speed, and work growing with the square of the file, are the bench's to measure (npm run
    // bench, at 100,000 people): no bound on time here, where a busy machine takes three times as
    // long as a quiet one.

    // SPEC §6: the round trip export -> import changes nothing.
    const exported = tempPath('large-export.json');
    expect((await cli(database, ['export', exported])).code).toBe(0);
    const before = await footprint();

    const again = await cli(database, ['import', exported]);

    expect(again.stdout).toMatch(
      new RegExp(`^imported \\S+: 0 added, 0 updated, ${PEOPLE} unchanged, 0 erased`),
    );
    expect(await footprint()).toEqual(before);
  }, 240_000);
});
