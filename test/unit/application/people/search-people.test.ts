import { NO_GRACE } from '../../../../src/domain/grace';
import { MAX_PAGE_LIMIT } from '../../../../src/application/page-limit';
import { SearchPeople, WHOLE_LOOKUP_SIZE } from '../../../../src/application/people/search-people';
import { InvalidInput } from '../../../../src/domain/errors';
import type { PersonFilter } from '../../../../src/domain/person-filter';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { addPerson, collect } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';

function setup() {
  const clock = new FakeClock('2025-03-15T12:00:00Z');
  const directory = new InMemoryDirectory(clock);
  return { clock, directory, search: new SearchPeople(directory.people, clock, NO_GRACE) };
}

describe('SearchPeople', () => {
  it('without a limit streams every visible match by id and leaves admins out', async () => {
    const { directory, search } = setup();
    const ann = await addPerson(directory, { lastName: 'Smith' });
    await addPerson(directory, { lastName: 'Smith', role: 'admin' });
    const bob = await addPerson(directory, { lastName: 'Smithers' });
    await addPerson(directory, { lastName: 'Jones' });

    const result = await search.execute({ filter: { lastName: 'smith' } });

    expect(result.kind).toBe('stream');
    // A long download, which the edge counts among the streams a key may run.
    expect(result.kind === 'stream' && result.lookup).toBe(false);
    expect(result.today).toBe('2025-03-15');
    const people = result.kind === 'stream' ? await collect(result.people) : result.people;
    expect(people.map((p) => p.id)).toEqual([ann.id, bob.id]);
  });

  it('without a limit answers a lookup whole, read at once, admins left out', async () => {
    const { directory, search } = setup();
    const email = 'shared@example.org';
    const contacts = [{ kind: 'email' as const, value: email, label: null }];
    const ann = await addPerson(directory, { contacts });
    await addPerson(directory, { contacts, role: 'admin' });
    const bob = await addPerson(directory, { contacts: [{ ...contacts[0], value: 'SHARED@example.org' }] });
    const carl = await addPerson(directory, { chatId: 'carl' });

    const byEmail = await search.execute({ filter: { email } });
    expect(byEmail.kind).toBe('whole');
    expect(byEmail.kind === 'whole' && byEmail.people.map((p) => p.id)).toEqual([ann.id, bob.id]);
    const byChat = await search.execute({ filter: { chatId: 'carl' } });
    expect(byChat.kind === 'whole' && byChat.people.map((p) => p.id)).toEqual([carl.id]);
    const nobody = await search.execute({ filter: { chatId: 'nobody' } });
    expect(nobody).toEqual({ today: '2025-03-15', kind: 'whole', people: [] });
  });

  it('streams the rest of a lookup that matches more people than it reads at once', async () => {
    const { directory, search } = setup();
    const contacts = [{ kind: 'email' as const, value: 'family@example.org', label: null }];
    const ids: number[] = [];
    for (let i = 0; i < WHOLE_LOOKUP_SIZE + 2; i++) ids.push((await addPerson(directory, { contacts })).id);

    const result = await search.execute({ filter: { email: 'family@example.org' } });

    expect(result.kind).toBe('stream');
    // Still a lookup, never counted among the long downloads.
    expect(result.kind === 'stream' && result.lookup).toBe(true);
    const people = result.kind === 'stream' ? await collect(result.people) : result.people;
    expect(people.map((p) => p.id)).toEqual(ids);
  });

  it('with a limit returns one page and the id to continue after when more remain', async () => {
    const { directory, search } = setup();
    const people = [];
    for (let i = 0; i < 5; i++) people.push(await addPerson(directory));

    const first = await search.execute({ filter: {}, limit: 2 });
    if (first.kind !== 'page') throw new Error('expected a page');
    expect(first.people.map((p) => p.id)).toEqual([people[0].id, people[1].id]);
    expect(first.nextAfter).toBe(people[1].id);

    const last = await search.execute({ filter: {}, limit: 2, after: people[3].id });
    if (last.kind !== 'page') throw new Error('expected a page');
    expect(last.people.map((p) => p.id)).toEqual([people[4].id]);
    expect(last.nextAfter).toBeNull();
  });

  it('gives no next page when the page is exactly full and nothing remains', async () => {
    const { directory, search } = setup();
    await addPerson(directory);
    await addPerson(directory);
    const page = await search.execute({ filter: {}, limit: 2 });
    expect(page.kind === 'page' && page.nextAfter).toBeNull();
  });

  it('pages past an admin without counting it', async () => {
    const { directory, search } = setup();
    const ann = await addPerson(directory);
    await addPerson(directory, { role: 'admin' });
    const bob = await addPerson(directory);
    const page = await search.execute({ filter: {}, limit: 1, after: ann.id });
    expect(page.kind === 'page' && page.people.map((p) => p.id)).toEqual([bob.id]);
    expect(page.kind === 'page' && page.nextAfter).toBeNull();
  });

  it('decides "active" by the clock\'s today', async () => {
    const { directory, search } = setup();
    const current = await addPerson(directory, {
      memberships: [{ club: 'Astro', kind: null, startDate: '2025-01-01', endDate: '2025-03-15' }],
    });
    await addPerson(directory, {
      memberships: [{ club: 'Astro', kind: null, startDate: '2024-01-01', endDate: '2025-03-14' }],
    });
    const page = await search.execute({ filter: { active: 'yes' }, limit: 10 });
    expect(page.kind === 'page' && page.people.map((p) => p.id)).toEqual([current.id]);
  });

  it('accepts the edges of the limit range', async () => {
    const { directory, search } = setup();
    await addPerson(directory);
    await expect(search.execute({ filter: {}, limit: 1 })).resolves.toMatchObject({
      kind: 'page',
    });
    await expect(search.execute({ filter: {}, limit: MAX_PAGE_LIMIT })).resolves.toMatchObject({
      kind: 'page',
    });
  });

  it.each([0, MAX_PAGE_LIMIT + 1, 1.5, Number.NaN])(
    'refuses a limit of %p before anything is read',
    async (limit) => {
      const { search } = setup();
      const beforeRead = jest.fn(async () => {});
      const refused = search.execute({ filter: {}, limit, beforeRead });
      await expect(refused).rejects.toThrow(InvalidInput);
      await expect(refused).rejects.toThrow(`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}`);
      expect(beforeRead).not.toHaveBeenCalled();
    },
  );

  it('runs beforeRead once, before the people are read', async () => {
    const { directory, search } = setup();
    const steps: string[] = [];
    const read = directory.people.searchRendered.bind(directory.people);
    directory.people.searchRendered = async (query, limit) => {
      steps.push('read');
      return read(query, limit);
    };
    await search.execute({
      filter: {},
      limit: 10,
      beforeRead: async () => {
        steps.push('before');
      },
    });
    expect(steps).toEqual(['before', 'read']);
  });

  it.each<[string, PersonFilter, number | undefined, boolean]>([
    ['an unpaged search that is not a lookup', { active: 'yes' }, undefined, true],
    ['an unpaged lookup', { chatId: 'chat-1' }, undefined, false],
    ['a page', { active: 'yes' }, 10, false],
  ])('tells beforeRead whether %s is a long stream', async (_, filter, limit, longStream) => {
    const { search } = setup();
    const beforeRead = jest.fn(async () => {});
    await search.execute({ filter, limit, beforeRead });
    expect(beforeRead).toHaveBeenCalledWith(expect.objectContaining({ longStream }));
  });
});
