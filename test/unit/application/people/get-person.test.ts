import { GetPerson } from '../../../../src/application/people/get-person';
import { NotFound } from '../../../../src/domain/errors';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { addPerson } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';

function setup() {
  const clock = new FakeClock('2025-03-15T12:00:00Z');
  const directory = new InMemoryDirectory(clock);
  return { directory, getPerson: new GetPerson(directory.people, clock) };
}

describe('GetPerson', () => {
  it("returns the person with its contacts, memberships and today's date", async () => {
    const { directory, getPerson } = setup();
    const ann = await addPerson(directory, {
      firstName: 'Ann',
      contacts: [{ kind: 'email', value: 'ann@example.org', label: null }],
      memberships: [{ club: 'Astro', kind: 'full', startDate: '2024-01-01', endDate: null }],
    });
    const result = await getPerson.execute({ id: ann.id });
    expect(result.today).toBe('2025-03-15');
    expect(result.person).toMatchObject({ id: ann.id, firstName: 'Ann', version: 1 });
    expect(result.person.contacts[0].value).toBe('ann@example.org');
    expect(result.person.memberships[0].club.name).toBe('Astro');
  });

  it('answers an admin exactly like a missing person', async () => {
    const { directory, getPerson } = setup();
    const admin = await addPerson(directory, { role: 'admin' });
    await expect(getPerson.execute({ id: admin.id })).rejects.toThrow(
      new NotFound(`person ${admin.id} not found`),
    );
    await expect(getPerson.execute({ id: 999 })).rejects.toThrow(new NotFound('person 999 not found'));
  });
});
