import { inject, injectable } from 'inversify';
import { InvalidInput } from '../../domain/errors';
import { isVisible } from '../../domain/person';
import { type CheckedRecord, checkPersonRecord } from '../../domain/person-record';
import type { NewPerson } from '../ports/person-repository';
import { TYPES } from '../ports/tokens';
import type { UnitOfWork } from '../ports/unit-of-work';

export interface ImportPeopleInput {
  /** The parsed file: it should be an array of records (SPEC §5); anything else is refused. */
  records: unknown;
  /** Called after each batch is written, for a progress bar. */
  onProgress?: (done: number, total: number) => void;
}

export interface ImportPeopleOutput {
  people: number;
  contacts: number;
  memberships: number;
  /** Distinct club names the file refers to (created when missing). */
  clubs: number;
}

// Big enough that a large file needs few round trips, small enough that one batch of rows stays
// well under PostgreSQL's limit of 65535 parameters per statement.
const BATCH_SIZE = 1000;
const CHAT_ID_LOOKUP_BATCH = 5000;

/**
 * Imports people from the exchange format: every record is checked first and nothing is written
 * unless all of them are good; then everything is written in one transaction, all or nothing.
 */
@injectable()
export class ImportPeople {
  constructor(@inject(TYPES.UnitOfWork) private readonly unitOfWork: UnitOfWork) {}

  async execute({ records, onProgress }: ImportPeopleInput): Promise<ImportPeopleOutput> {
    if (!Array.isArray(records)) {
      throw new InvalidInput('the file must hold a JSON array of people');
    }
    const people = checkAll(records);

    return this.unitOfWork.run(async (tx) => {
      // chat_id is unique among the people the API shows: an admin's neither blocks nor is blocked.
      const byChatId = new Map<string, number>();
      people.forEach((p, index) => {
        if (p.chatId !== null && isVisible(p)) byChatId.set(p.chatId, index);
      });
      const chatIds = [...byChatId.keys()];
      const taken: string[] = [];
      for (let i = 0; i < chatIds.length; i += CHAT_ID_LOOKUP_BATCH) {
        taken.push(...(await tx.people.chatIdsInUse(chatIds.slice(i, i + CHAT_ID_LOOKUP_BATCH))));
      }
      if (taken.length > 0) {
        const errors = taken
          .map((chatId) => ({ chatId, index: byChatId.get(chatId) ?? 0 }))
          .sort((a, b) => a.index - b.index)
          .map(
            ({ chatId, index }) =>
              `record ${index}: chat_id ${JSON.stringify(chatId)} is already used by a person in the directory`,
          );
        throw new InvalidInput(errors);
      }

      onProgress?.(0, people.length);
      for (let i = 0; i < people.length; i += BATCH_SIZE) {
        await tx.people.insertMany(people.slice(i, i + BATCH_SIZE));
        onProgress?.(Math.min(i + BATCH_SIZE, people.length), people.length);
      }
      return summarise(people);
    });
  }
}

/** Checks every record; throws one InvalidInput listing every problem, each with its record index. */
function checkAll(records: unknown[]): NewPerson[] {
  const errors: string[] = [];
  const people: CheckedRecord[] = [];
  const firstWithChatId = new Map<string, number>();
  records.forEach((raw, index) => {
    const checked = checkPersonRecord(raw);
    if ('errors' in checked) {
      for (const error of checked.errors) errors.push(`record ${index}: ${error}`);
      return;
    }
    const { chatId } = checked.record;
    if (chatId !== null && isVisible(checked.record)) {
      const first = firstWithChatId.get(chatId);
      if (first !== undefined) {
        errors.push(`record ${index}: chat_id ${JSON.stringify(chatId)} is also used by record ${first}`);
      } else {
        firstWithChatId.set(chatId, index);
      }
    }
    people.push(checked.record);
  });
  if (errors.length > 0) throw new InvalidInput(errors);
  return people;
}

function summarise(people: NewPerson[]): ImportPeopleOutput {
  const clubs = new Set<string>();
  let contacts = 0;
  let memberships = 0;
  for (const person of people) {
    contacts += person.contacts.length;
    memberships += person.memberships.length;
    for (const m of person.memberships) clubs.add(m.club);
  }
  return { people: people.length, contacts, memberships, clubs: clubs.size };
}
