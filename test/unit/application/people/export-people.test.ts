import { importFixture, record } from '../../support/import-fixture';

describe('ExportPeople', () => {
  it('writes every member, never an admin, in the import format with every field present', async () => {
    const { importPeople, exported } = importFixture();
    await importPeople.execute({
      records: [record({ chat_id: '7' }), { first_name: 'Margaret', last_name: 'Hale', role: 'admin' }],
    });

    expect(await exported()).toEqual([
      {
        id: 1,
        member_number: null,
        first_name: 'Ada',
        last_name: 'Byron',
        chat_id: '7',
        planner_id: null,
        role: 'member',
        contacts: [{ kind: 'email', value: 'ada@example.org', label: 'home' }],
        memberships: [{ club: 'Northfield', kind: 'full', start_date: '2024-01-01', end_date: '2024-12-31' }],
      },
    ]);
  });

  it('round-trips: an export without its ids, imported into an empty directory, exports the same', async () => {
    const source = importFixture();
    await source.importPeople.execute({
      records: [
        record({
          contacts: [
            { kind: 'address', value: '1 Orion Road\nNorthfield', label: null },
            { kind: 'phone', value: '+44 7700 900100' },
            { kind: 'email', value: 'b@example.org', label: 'work' },
            { kind: 'email', value: 'a@example.org' },
          ],
          memberships: [
            { club: 'B', start_date: '2023-01-01' },
            { club: 'A', kind: 'student', start_date: '2020-01-01', end_date: '2021-01-01' },
          ],
        }),
        record({ first_name: 'Zoë', last_name: "O'Brien", chat_id: 'z', planner_id: 'p' }),
      ],
    });
    const first = await source.exported();

    const copy = importFixture();
    await copy.importPeople.execute({ records: first.map((r) => ({ ...r, id: null })) });

    expect(await copy.exported()).toEqual(first);
  });
});
