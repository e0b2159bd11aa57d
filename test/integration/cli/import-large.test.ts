import type { Database } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { cli, countPeople } from './cli-harness';
import { personRecord, tempFile } from './import-files';

const PEOPLE = 100_000;

describe.each(testDatabases)('a large import on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('imports 100,000 people in well under a minute, with progress on a terminal', async () => {
    const path = tempFile(Array.from({ length: PEOPLE }, (_, i) => personRecord('large', i)));
    const started = Date.now();

    const result = await cli(database, ['import', path], { ttyStderr: true });

    const seconds = (Date.now() - started) / 1000;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^imported 100000 people with 200000 contacts and 100000 memberships in 3 clubs/,
    );
    expect(result.stderr).toContain(`checking ${PEOPLE} records...`);
    expect(result.stderr).toMatch(/importing \[.*\] \d+%/);
    expect(await countPeople(database)).toBe(PEOPLE);
    expect(seconds).toBeLessThan(45);
  }, 120_000);
});
