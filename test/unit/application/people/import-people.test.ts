import { InvalidInput } from '../../../../src/domain/errors';
import { importFixture, messagesOf, record } from '../../support/import-fixture';

describe('ImportPeople', () => {
  it('imports people with contacts and memberships, creating clubs by name, and sums them up', async () => {
    const { directory, importPeople } = importFixture();

    const result = await importPeople.execute({
      records: [
        record({ chat_id: '42', planner_id: 'p-1' }),
        record({
          first_name: 'Grace',
          last_name: 'Hopper',
          contacts: [],
          memberships: [
            { club: 'Riverside', start_date: '2020-02-29' },
            { club: 'Northfield', start_date: '2021-01-01', end_date: null },
          ],
        }),
        { first_name: 'Only', last_name: 'Names' },
      ],
    });

    expect(result).toEqual({ added: 3, updated: 0, unchanged: 0, erased: 0, kept: 0, possibleDuplicates: 0 });
    const people = [];
    for await (const person of directory.people.streamAll()) people.push(person);
    expect(people.map((p) => [p.firstName, p.chatId, p.plannerId, p.role])).toEqual([
      ['Ada', '42', 'p-1', 'member'],
      ['Grace', null, null, 'member'],
      ['Only', null, null, 'member'],
    ]);
    expect(people[1].memberships.map((m) => [m.club.name, m.kind, m.startDate, m.endDate])).toEqual([
      ['Riverside', null, '2020-02-29', null],
      ['Northfield', null, '2021-01-01', null],
    ]);
    expect(people[0].contacts).toEqual([
      { id: expect.any(Number), kind: 'email', value: 'ada@example.org', label: 'home' },
    ]);
  });

  it('stores empty chat_id and planner_id as null and trims names', async () => {
    const { directory, importPeople } = importFixture();
    await importPeople.execute({ records: [record({ first_name: '  Ada ', chat_id: '', planner_id: '' })] });
    const [person] = await directory.people.search({ filter: {}, today: '2025-01-01' }, 10);
    expect(person).toMatchObject({ firstName: 'Ada', chatId: null, plannerId: null });
  });

  it('names the record index and field of every problem, and imports nothing', async () => {
    const { directory, importPeople } = importFixture();

    const messages = await messagesOf(
      importPeople.execute({
        records: [
          record(),
          record({ first_name: undefined }),
          record({ memberships: [{ club: 'N', start_date: '2024-02-30' }] }),
          record({ memberships: [{ club: 'N', start_date: '2024-05-01', end_date: '2024-04-30' }] }),
          record({ contacts: [{ kind: 'fax', value: '123' }] }),
          record({ contacts: [{ kind: 'email', value: 'not an address' }] }),
          record({ nickname: 'x' }),
          'not an object',
          record({ role: 'owner', last_name: '' }),
        ],
      }),
    );

    expect(messages).toEqual([
      'record 1: first_name is required',
      'record 2: memberships[0].start_date must be a calendar date written YYYY-MM-DD',
      'record 3: memberships[0].end_date is before start_date',
      'record 4: contacts[0].kind must be email, phone or address',
      'record 5: contacts[0].value is not an email address',
      'record 6: unknown field "nickname"',
      'record 7: must be an object with first_name and last_name',
      'record 8: last_name must not be empty',
      'record 8: role must be one of member, admin',
    ]);
    expect(await directory.people.count()).toBe(0);
  });

  it('refuses a chat_id used twice in the file, naming both records', async () => {
    const { directory, importPeople } = importFixture();
    const messages = await messagesOf(
      importPeople.execute({ records: [record({ chat_id: 'c1' }), record(), record({ chat_id: 'c1' })] }),
    );
    expect(messages).toEqual(['record 2: chat_id "c1" is also used by record 0']);
    expect(await directory.people.count()).toBe(0);
  });

  it('refuses a chat_id a person in the directory already has', async () => {
    const { directory, importPeople } = importFixture();
    await importPeople.execute({ records: [record({ chat_id: 'taken' })] });

    const failure = importPeople.execute({
      records: [record({ chat_id: 'free' }), record({ chat_id: 'taken' })],
    });

    await expect(failure).rejects.toThrow(InvalidInput);
    expect(await messagesOf(failure)).toEqual([
      'record 1: chat_id "taken" is already used by person 1, whom no record names',
    ]);
    expect(await directory.people.count()).toBe(1);
  });

  it('counts chat_ids among members only: admins may share one with a member or each other', async () => {
    const { directory, importPeople } = importFixture();
    await importPeople.execute({
      records: [record({ chat_id: 'm' }), record({ role: 'admin', chat_id: 'a' })],
    });

    await importPeople.execute({
      records: [
        record({ role: 'admin', chat_id: 'm' }),
        record({ role: 'admin', chat_id: 'm' }),
        record({ chat_id: 'a' }),
        record({ role: 'admin', chat_id: 'a' }),
      ],
    });

    expect(await directory.people.count()).toBe(6);
    expect((await directory.people.chatIdsInUse(['m', 'a'])).sort()).toEqual(['a', 'm']);
  });

  it('reports progress batch by batch up to the total', async () => {
    const { importPeople } = importFixture();
    const seen: [number, number][] = [];
    const records = Array.from({ length: 2500 }, (_, i) => record({ first_name: `P${i}` }));

    await importPeople.execute({ records, onProgress: (done, total) => seen.push([done, total]) });

    expect(seen).toEqual([
      [0, 2500],
      [1000, 2500],
      [2000, 2500],
      [2500, 2500],
    ]);
  });
});
