import { inject, injectable } from 'inversify';
import { InvalidInput } from '../../domain/errors';
import type { Person } from '../../domain/person';
import type { PersonFilter } from '../../domain/person-filter';
import type { Clock } from '../ports/clock';
import type { PersonRepository } from '../ports/person-repository';
import { TYPES } from '../ports/tokens';

export const MAX_PAGE_SIZE = 1000;

/** Who may read people is decided before this runs (the key's `read` permission, at the edge). */
export interface SearchPeopleInput {
  filter: PersonFilter;
  /** Page size; without it every match is streamed. */
  limit?: number;
  /** Only people with an id greater than this (keyset paging). */
  after?: number;
}

export type SearchPeopleOutput = { today: string } & (
  | { paged: true; people: Person[]; nextAfter: number | null }
  | { paged: false; people: AsyncIterable<Person> }
);

@injectable()
export class SearchPeople {
  constructor(
    @inject(TYPES.PersonRepository) private readonly people: PersonRepository,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  async execute({ filter, limit, after }: SearchPeopleInput): Promise<SearchPeopleOutput> {
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_PAGE_SIZE)) {
      throw new InvalidInput(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    }
    if (after !== undefined && !(Number.isSafeInteger(after) && after >= 0)) {
      throw new InvalidInput('after must be a whole number, 0 or more');
    }
    // One date for the whole answer, so "current" means the same for every person in it.
    const today = this.clock.today();
    const query = { filter, today, after };
    if (limit === undefined) return { today, paged: false, people: this.people.stream(query) };

    // One more than asked tells whether another page exists without a count query.
    const found = await this.people.search(query, limit + 1);
    const people = found.slice(0, limit);
    const nextAfter = found.length > limit ? people[people.length - 1].id : null;
    return { today, paged: true, people, nextAfter };
  }
}
