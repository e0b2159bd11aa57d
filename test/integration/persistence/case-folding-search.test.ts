import type { PersonRepository } from '../../../src/application/ports/person-repository';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { personFilterSql } from '../../../src/infrastructure/persistence/person-filter-sql';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { caseFoldingCases, caseFoldingPeople } from '../../support/case-folding-cases';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { idsTagged, uniqueTag } from './fixtures';

const today = '2024-06-15';

describe.each(testDatabases)('case-insensitive search on $name', (target) => {
  let database: Database;
  let people: PersonRepository;
  const tag = uniqueTag();
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    database = await openTestDatabase(target);
    people = createRepositories(database.dataSource.manager).people;
    const named = caseFoldingPeople(tag);
    await people.insertMany(Object.values(named));
    const created = await idsTagged(database, tag);
    Object.keys(named).forEach((name, index) => {
      ids[name] = created[index];
    });
  });
  afterAll(() => database?.close());

  // The same table as the in-memory adapter's (test/unit/infrastructure/in-memory).
  it.each(caseFoldingCases(tag))('%s', async (_title, filter, expected) => {
    const found = await people.search({ filter: { lastName: tag, ...filter }, today }, 100);
    expect(found.map((p) => p.id)).toEqual(expected.map((name) => ids[name]).sort((a, b) => a - b));
  });

  it('keeps the folded copies current when a name changes', async () => {
    await people.update(ids.zoe, { firstName: 'ΣΤΡΑΣΣΕ' });
    const found = await people.search({ filter: { lastName: tag, firstName: 'στρασσε' }, today }, 10);
    expect(found.map((p) => p.id)).toEqual([ids.zoe]);
    await people.update(ids.zoe, { firstName: 'Zo\u00eb' });
  });

  it('folds the names of a member made with an account', async () => {
    const accountTag = uniqueTag();
    const { accounts } = createRepositories(database.dataSource.manager);
    const account = await accounts.create({
      username: `u${accountTag}`.toLowerCase(),
      passwordHash: 'x',
      permissions: [],
      firstName: 'Straße',
      lastName: `ΣΊΣΥΦΟΣ${accountTag}`,
      role: 'member',
    });
    const found = await people.search(
      { filter: { lastName: `σίσυφος${accountTag}`, firstName: 'STRASSE' }, today },
      10,
    );
    expect(found.map((p) => p.id)).toEqual([account.personId]);
  });

  /**
   * Whether the search can be served by an index: the plan of its condition with sequential scans
   * and plain index scans (which on a handful of rows beat any index by walking the primary key)
   * priced out of reach, leaving the bitmap scans of indexes that match the condition.
   */
  async function planOf(filter: Parameters<typeof personFilterSql>[0]): Promise<string> {
    const { sql, params } = personFilterSql(filter, { today, visibleOnly: true });
    return database.dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      await manager.query('SET LOCAL enable_indexscan = off');
      const rows: { 'QUERY PLAN': string }[] = await manager.query(
        `EXPLAIN SELECT p.id FROM people p WHERE ${sql}`,
        params,
      );
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it('serves the name substring match from the trigram index on the folded name', async () => {
    expect(await planOf({ lastName: 'σίσυφος' })).toContain('people_last_name_folded_trgm_idx');
    expect(await planOf({ firstName: 'STRASSE' })).toContain('people_first_name_folded_trgm_idx');
  });

  it('serves the email exact match from the index on the folded email', async () => {
    expect(await planOf({ email: 'ZOË@example.org' })).toContain('contacts_email_folded_idx');
  });
});
