import type { PlannedChange } from '../../../../src/application/people/import-people';
import { InvalidInput } from '../../../../src/domain/errors';
import { importFixture, messagesOf, record } from '../../support/import-fixture';

// Three batches of the import's 1000, so that people are written before the last is read.
const COUNT = 2500;

function people(count = COUNT): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) =>
    record({
      first_name: `Ada${i}`,
      chat_id: `chat-${i}`,
      member_number: `M${i}`,
      contacts: [{ kind: 'email', value: `ada.${i}@example.org`, label: null }],
    }),
  );
}

/** What the store holds, without the moments it was written at (two runs never share those). */
function stored(fixture: ReturnType<typeof importFixture>) {
  const { people: persons, audit, changes } = fixture.directory.store.state;
  const timeless = (value: unknown) =>
    JSON.parse(
      JSON.stringify(value, (_key, v) => (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? 0 : v)),
    );
  return timeless({ people: [...persons.values()], audit, changes });
}

/** The same import, checked then written, and written while it is checked (from the first record). */
async function bothWays(records: Record<string, unknown>[], options: { removeMissing?: boolean } = {}) {
  return Promise.all(
    [undefined, 1].map(async (writeAheadAfter) => {
      const fixture = importFixture({ writeAheadAfter });
      // People written, counted whether or not they are rolled back.
      let inserted = 0;
      const insertMany = fixture.directory.people.insertMany.bind(fixture.directory.people);
      fixture.directory.people.insertMany = (batch) => {
        inserted += batch.length;
        return insertMany(batch);
      };
      const told: PlannedChange[] = [];
      const progress: [number, number][] = [];
      const outcome = await fixture.importPeople
        .execute({
          records,
          ...options,
          onChange: (change) => void told.push(change),
          onProgress: (done, total) => void progress.push([done, total]),
        })
        .then(
          (output) => ({ output }),
          (error: unknown) => ({ error }),
        );
      return { outcome, told, progress, stored: stored(fixture), inserted: () => inserted };
    }),
  );
}

/**
 * A first import writes its people while it checks the file (into a directory without anyone,
 * nothing the file says can meet a person): what it writes, tells and refuses is exactly what the
 * same import checked first, then written, would.
 */
describe('ImportPeople, a first import written while it is checked', () => {
  it('writes, tells and counts what the same import checked first would', async () => {
    const [checkedFirst, writtenAhead] = await bothWays(people());
    expect({ ...writtenAhead, inserted: 0 }).toEqual({ ...checkedFirst, inserted: 0 });
    expect([checkedFirst.inserted(), writtenAhead.inserted()]).toEqual([COUNT, COUNT]);
    expect(writtenAhead.outcome).toEqual({ output: expect.objectContaining({ added: COUNT }) });
    expect(writtenAhead.told.filter((change) => change.kind === 'add')).toHaveLength(COUNT);
    expect(writtenAhead.stored.changes).toHaveLength(COUNT);
  });

  it('writes nothing when the last batch holds a problem, and names the same problems', async () => {
    const records = people();
    records[COUNT - 10] = { ...records[COUNT - 10], chat_id: 'chat-3' };
    records[COUNT - 5] = { ...records[COUNT - 5], member_number: 'M7' };
    records[COUNT - 1] = { ...records[COUNT - 1], last_name: undefined };
    const [checkedFirst, writtenAhead] = await bothWays(records);
    // Written ahead: the first two batches, before the third was read, then rolled back.
    expect([checkedFirst.inserted(), writtenAhead.inserted()]).toEqual([0, 2000]);
    expect({ ...writtenAhead, inserted: 0 }).toEqual({ ...checkedFirst, inserted: 0 });
    const { error } = writtenAhead.outcome as { error: unknown };
    expect(error).toBeInstanceOf(InvalidInput);
    expect((error as InvalidInput).messages).toEqual([
      `record ${COUNT - 10}: chat_id "chat-3" is also used by record 3`,
      `record ${COUNT - 5}: member_number "M7" is also used by record 7`,
      `record ${COUNT - 1}: last_name is required`,
    ]);
    expect(writtenAhead.stored).toEqual({ people: [], audit: [], changes: [] });
    expect(writtenAhead.told).toEqual([]);
  });

  it("erases nobody with --remove-missing: the people in the directory are the file's own", async () => {
    const [checkedFirst, writtenAhead] = await bothWays(people(), { removeMissing: true });
    expect({ ...writtenAhead, inserted: 0 }).toEqual({ ...checkedFirst, inserted: 0 });
    expect(writtenAhead.outcome).toEqual({
      output: expect.objectContaining({ added: COUNT, erased: 0, kept: 0 }),
    });
  });

  it('is no first import once the directory holds anyone: a sync checks against them', async () => {
    const fixture = importFixture({ writeAheadAfter: 1 });
    await fixture.importPeople.execute({ records: [record({ chat_id: 'taken', member_number: 'M1' })] });
    const messages = await messagesOf(
      fixture.importPeople.execute({ records: [record({ chat_id: 'taken', member_number: 'M2' })] }),
    );
    expect(messages).toEqual(['record 0: chat_id "taken" is already used by person 1, whom no record names']);
  });

  it('writes nothing in a dry run', async () => {
    const fixture = importFixture({ writeAheadAfter: 1 });
    const output = await fixture.importPeople.execute({ records: people(10), dryRun: true });
    expect(output.added).toBe(10);
    expect(stored(fixture)).toEqual({ people: [], audit: [], changes: [] });
  });
});
