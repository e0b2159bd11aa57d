import { inject, injectable } from 'inversify';
import type { Person } from '../../domain/person';
import { TYPES } from '../ports/tokens';
import type { UnitOfWork } from '../ports/unit-of-work';

export interface ExportPeopleInput {
  /** Receives each person in id order; awaited, so that a slow writer holds back the reading. */
  write: (person: Person) => Promise<void> | void;
}

export interface ExportPeopleOutput {
  people: number;
}

/**
 * Exports every person, admins included (erased people are no longer anyone to export). People are read in
 * batches and handed on one by one, so that memory does not grow with the directory; one
 * transaction keeps the reading consistent while it runs.
 */
@injectable()
export class ExportPeople {
  constructor(@inject(TYPES.UnitOfWork) private readonly unitOfWork: UnitOfWork) {}

  async execute({ write }: ExportPeopleInput): Promise<ExportPeopleOutput> {
    return this.unitOfWork.run(async (tx) => {
      let people = 0;
      for await (const person of tx.people.streamAll()) {
        await write(person);
        people += 1;
      }
      return { people };
    });
  }
}
