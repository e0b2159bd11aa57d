import { NO_GRACE } from '../../../src/domain/grace';
import { ExportPeople } from '../../../src/application/people/export-people';
import { ImportPeople, type IncomingRecord } from '../../../src/application/people/import-people';
import {
  checkPersonRecord,
  type PersonFileRecord,
  toPersonRecord,
} from '../../../src/person-file/person-file-record';
import { InMemorySpools } from '../../../src/infrastructure/in-memory/in-memory-spools';
import { InMemoryDirectory } from '../../../src/infrastructure/in-memory/in-memory-directory';
import { FakeClock } from './fake-clock';

/** Records of a file, as the command line's reader hands them to the import (read once). */
export async function* fromArray(values: unknown[]): AsyncIterable<IncomingRecord> {
  for (const [index, value] of values.entries()) {
    const checked = checkPersonRecord(value);
    const where = `record ${index}`;
    yield 'errors' in checked
      ? { index, where, problems: checked.errors.map((e) => `${where}: ${e}`) }
      : { index, where, person: checked.record };
  }
}

/** `writeAheadAfter`: from how many records a first import writes while it checks (see ImportPeople). */
export function importFixture(options: { writeAheadAfter?: number } = {}) {
  const directory = new InMemoryDirectory();
  const importer = new ImportPeople(
    directory.unitOfWork,
    new FakeClock(),
    new InMemorySpools(),
    options.writeAheadAfter,
  );
  const exportPeople = new ExportPeople(directory.unitOfWork, new FakeClock(), NO_GRACE);
  return {
    directory,
    importPeople: {
      execute: (input: Omit<Parameters<ImportPeople['execute']>[0], 'records'> & { records: unknown[] }) =>
        importer.execute({ ...input, records: fromArray(input.records) }),
    },
    async exported(): Promise<PersonFileRecord[]> {
      const records: PersonFileRecord[] = [];
      await exportPeople.execute({ write: (person) => void records.push(toPersonRecord(person)) });
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
