import { ExportPeople } from '../../../src/application/people/export-people';
import { ImportPeople } from '../../../src/application/people/import-people';
import type { PersonRecord } from '../../../src/domain/person-record';
import { InMemoryDirectory } from '../../../src/infrastructure/in-memory/in-memory-directory';

export function importFixture() {
  const directory = new InMemoryDirectory();
  const importPeople = new ImportPeople(directory.unitOfWork);
  const exportPeople = new ExportPeople(directory.unitOfWork);
  return {
    directory,
    importPeople,
    async exported(): Promise<PersonRecord[]> {
      const records: PersonRecord[] = [];
      await exportPeople.execute({ write: (record) => void records.push(record) });
      return records;
    },
  };
}

/** A complete, valid record; override what the test is about. */
export function record(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: 'Ada',
    last_name: 'Byron',
    chat_id: null,
    planner_id: null,
    role: 'member',
    contacts: [{ kind: 'email', value: 'ada@example.org', label: 'home' }],
    memberships: [{ club: 'Northfield', kind: 'full', start_date: '2024-01-01', end_date: '2024-12-31' }],
    ...fields,
  };
}

/** The messages of the error a promise rejects with. */
export async function messagesOf(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (error === null) throw new Error('expected a rejection');
  return (error as { messages: string[] }).messages;
}
