import { inject, injectable } from 'inversify';
import type { PersonFilter } from '../../domain/person-filter';
import type { Clock } from '../ports/clock';
import type { PersonRepository } from '../ports/person-repository';
import { TYPES } from '../ports/tokens';
import type { RenderedPerson } from './person-view';

/**
 * Who may read people is decided before this runs (the key's `read` permission, at the edge), and
 * so are the bounds of `limit` and `after`.
 */
export interface SearchPeopleInput {
  filter: PersonFilter;
  /** Page size; without it every match is streamed. */
  limit?: number;
  /** Only people with an id greater than this (keyset paging). */
  after?: number;
}

/** People as the API shows them, already rendered as JSON text (the read model). */
export type SearchPeopleOutput = { today: string } & (
  | { paged: true; people: RenderedPerson[]; nextAfter: number | null }
  | { paged: false; people: AsyncIterable<RenderedPerson> }
);

@injectable()
export class SearchPeople {
  constructor(
    @inject(TYPES.PersonRepository) private readonly people: PersonRepository,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  async execute({ filter, limit, after }: SearchPeopleInput): Promise<SearchPeopleOutput> {
    // One date for the whole answer, so "current" means the same for every person in it.
    const today = this.clock.today();
    const query = { filter, today, after };
    if (limit === undefined) return { today, paged: false, people: this.people.streamRendered(query) };

    // One more than asked tells whether another page exists without a count query.
    const found = await this.people.searchRendered(query, limit + 1);
    const people = found.slice(0, limit);
    const nextAfter = found.length > limit ? people[people.length - 1].id : null;
    return { today, paged: true, people, nextAfter };
  }
}
