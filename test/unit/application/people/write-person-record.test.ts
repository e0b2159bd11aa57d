import { ImportPeople } from '../../../../src/application/people/import-people';
import { WritePersonRecord } from '../../../../src/application/people/write-person-record';
import type { PersonRepository } from '../../../../src/application/ports/person-repository';
import { Conflict, NotFound, PreconditionFailed } from '../../../../src/domain/errors';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { InMemorySpools } from '../../../../src/infrastructure/in-memory/in-memory-spools';
import { addPerson, principalOf } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';
import { fromArray } from '../../support/import-fixture';

const manager = principalOf(7, ['read', 'manage'], 42);
const renewal = { club: 'Northfield', kind: 'full', startDate: '2025-01-01', endDate: '2025-12-31' };
const first = { club: 'Northfield', kind: 'full', startDate: '2024-01-01', endDate: '2024-12-31' };

function setup(people?: (directory: InMemoryDirectory) => PersonRepository) {
  const clock = new FakeClock('2025-03-15T12:00:00Z');
  const directory = new InMemoryDirectory(clock);
  const write = new WritePersonRecord(people?.(directory) ?? directory.people, directory.unitOfWork, clock);
  const importPeople = new ImportPeople(directory.unitOfWork, clock, new InMemorySpools());
  return { directory, write, importPeople };
}

describe('WritePersonRecord', () => {
  it('a renewal made while someone else renewed the same person reads them again and keeps both', async () => {
    let raced = false;
    const { directory, write, importPeople } = setup((directory) =>
      Object.assign(Object.create(directory.people) as PersonRepository, {
        // After the renewal has read the person, another import gives them another membership.
        findById: async (id: number) => {
          const person = await directory.people.findById(id);
          if (!raced && person !== null) {
            raced = true;
            await importPeople.execute({
              records: fromArray([
                {
                  id,
                  memberships: [
                    { club: 'Northfield', kind: 'full', start_date: '2024-01-01', end_date: '2024-12-31' },
                    { club: 'Southfield', kind: null, start_date: '2025-02-01', end_date: null },
                  ],
                },
              ]),
            });
          }
          return person;
        },
      }),
    );
    const ann = await addPerson(directory, { memberships: [first] });

    const { person } = await write.execute({
      principal: manager,
      write: { kind: 'renew', id: ann.id, membership: renewal },
    });

    expect(raced).toBe(true);
    expect(person.memberships.map((m) => [m.club.name, m.startDate])).toEqual([
      ['Northfield', '2024-01-01'],
      ['Northfield', '2025-01-01'],
      ['Southfield', '2025-02-01'],
    ]);
  });

  it('a renewal answers 412 to a stale version, 404 for an admin, 409 for the same membership twice', async () => {
    const { directory, write } = setup();
    const ann = await addPerson(directory, { memberships: [first] });
    const admin = await addPerson(directory, { role: 'admin' });
    const renew = (id: number, membership = renewal, expectedVersions?: number[]) =>
      write.execute({ principal: manager, write: { kind: 'renew', id, membership, expectedVersions } });

    await expect(renew(ann.id, renewal, [ann.version + 1])).rejects.toBeInstanceOf(PreconditionFailed);
    await expect(renew(admin.id)).rejects.toBeInstanceOf(NotFound);
    await expect(renew(ann.id, first)).rejects.toBeInstanceOf(Conflict);
    expect((await directory.people.findById(ann.id))?.version).toBe(ann.version);
  });

  it('adds the person a record says and answers them with their new id', async () => {
    const { write } = setup();
    const { person } = await write.execute({
      principal: manager,
      write: {
        kind: 'add',
        person: { id: null, firstName: 'Ada', lastName: 'Lovelace', memberships: [first] },
      },
    });
    expect(person).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', version: 1 });
    expect(person.memberships).toHaveLength(1);
  });
});
