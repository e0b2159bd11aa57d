import type { Grace } from '../../domain/grace';
import { NotFound } from '../../domain/errors';
import type { Clock } from '../ports/clock';
import type { PersonRepository } from '../ports/person-repository';
import { type FoundPerson, foundPerson } from './find-people';

/** How the command line names one person: by the directory's id or by the society's member number. */
export type PersonReference = { id: number } | { memberNumber: string };

export interface IdentifiedPerson extends FoundPerson {
  admin: boolean;
  erased: boolean;
  hasAccount: boolean;
}

/**
 * The one person a reference names, whoever they are (admins and erased people too: the command
 * that asked decides what it does with them), with what a confirmation shows of them. NotFound
 * when nobody has that id or member number.
 */
export class IdentifyPerson {
  constructor(
    private readonly people: PersonRepository,
    private readonly clock: Clock,
    private readonly grace: Grace,
  ) {}

  async execute(reference: PersonReference): Promise<IdentifiedPerson> {
    const byNumber = 'memberNumber' in reference;
    const [identity] = await this.people.findIdentities({
      ids: byNumber ? [] : [reference.id],
      memberNumbers: byNumber ? [reference.memberNumber] : [],
      chatIds: [],
    });
    const person = identity === undefined ? null : await this.people.findById(identity.id);
    if (identity === undefined || person === null) {
      throw new NotFound(
        byNumber
          ? `no person has the member number ${JSON.stringify(reference.memberNumber)}`
          : `no person has the id ${reference.id}`,
      );
    }
    return {
      ...foundPerson(person, this.clock.today(), this.grace),
      admin: identity.role === 'admin',
      erased: identity.erased,
      hasAccount: identity.hasAccount,
    };
  }
}
