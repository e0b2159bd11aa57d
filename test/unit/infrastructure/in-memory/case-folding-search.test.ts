import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { caseFoldingCases, caseFoldingPeople } from '../../../support/case-folding-cases';

// The same table runs against PostgreSQL and PGlite in
// test/integration/persistence/case-folding-search.test.ts: the adapters must agree.
describe('InMemoryPersonRepository case-insensitive matching', () => {
  const tag = 'Tagged';
  const directory = new InMemoryDirectory();
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    const people = caseFoldingPeople(tag);
    for (const [name, person] of Object.entries(people)) {
      await directory.people.insertMany([person]);
      ids[name] = directory.store.state.nextId.person - 1;
    }
  });

  it.each(caseFoldingCases(tag))('%s', async (_title, filter, expected) => {
    const found = await directory.people.search(
      { filter: { lastName: tag, ...filter }, today: '2025-03-15' },
      100,
    );
    expect(found.map((p) => p.id)).toEqual(expected.map((name) => ids[name]).sort((a, b) => a - b));
  });
});
