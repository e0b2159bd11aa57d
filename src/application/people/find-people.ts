import { InvalidInput } from '../../domain/errors';
import type { Grace } from '../../domain/grace';
import { isCurrent } from '../../domain/membership';
import type { Person } from '../../domain/person';
import { FILTER_STRING_MAX_LENGTH, type PersonFilter } from '../../domain/person-filter';
import { personStanding, type Standing } from '../../domain/standing';
import { checkText } from '../../domain/text';
import type { Clock } from '../ports/clock';
import type { PersonRepository } from '../ports/person-repository';

/** A person as the command line shows them to be told apart: who, how to reach, whether a member. */
export interface FoundPerson {
  id: number;
  memberNumber: string | null;
  firstName: string;
  lastName: string;
  /** Their first email contact (contacts are ordered by kind, then id). */
  firstEmail: string | null;
  /** Holds a membership current today. */
  current: boolean;
  /** Their standing today (SPEC §10): current, grace, pending, lapsed or none. */
  standing: Standing;
}

export function foundPerson(person: Person, today: string, grace: Grace): FoundPerson {
  return {
    id: person.id,
    memberNumber: person.memberNumber,
    firstName: person.firstName,
    lastName: person.lastName,
    firstEmail: person.contacts.find((c) => c.kind === 'email')?.value ?? null,
    current: person.memberships.some((m) => isCurrent(m, today)),
    standing: personStanding(person.memberships, today, grace),
  };
}

/**
 * `people find TEXT` (SPEC §9): the people whose first or last name contains the text, or whose
 * email, member number or chat_id is the text, each matched as the API's filter of that field
 * matches (case folding; % _ and \ themselves). One search per field, so that each keeps its
 * index; admins and erased people are never found, as in every people result.
 */
export class FindPeople {
  constructor(
    private readonly people: PersonRepository,
    private readonly clock: Clock,
    private readonly grace: Grace,
  ) {}

  async execute({ text }: { text: string }): Promise<FoundPerson[]> {
    const checked = checkText(text, { maxLength: FILTER_STRING_MAX_LENGTH });
    if ('problem' in checked) throw new InvalidInput(`the text to find ${checked.problem}`);
    const wanted = checked.text;
    // An empty text is in every name: that is a listing of everyone, which `export` is for.
    if (wanted === '')
      throw new InvalidInput(
        'give some text to find: part of a name, an email, a member number or a chat_id',
      );
    const today = this.clock.today();
    const filters: PersonFilter[] = [
      { firstName: wanted },
      { lastName: wanted },
      { email: wanted },
      { memberNumber: wanted },
      { chatId: wanted },
    ];
    const found = new Map<number, FoundPerson>();
    for (const filter of filters) {
      for await (const person of this.people.stream({ filter, today })) {
        found.set(person.id, foundPerson(person, today, this.grace));
      }
    }
    return [...found.values()].sort((a, b) => a.id - b.id);
  }
}
