import type { Grace } from '../../domain/grace';
import { isLookup, type PersonFilter } from '../../domain/person-filter';
import { checkPageLimit, MAX_PAGE_LIMIT } from '../page-limit';
import type { Clock } from '../ports/clock';
import type { PersonQuery, PersonRepository } from '../ports/person-repository';
import type { RenderedPerson } from '../ports/person-repository';

/**
 * Who may read people is decided before this runs (the key's `read` permission, at the edge), and
 * so is whether `after` is an id.
 */
export interface SearchPeopleInput {
  filter: PersonFilter;
  /** Page size, 1 to MAX_PAGE_LIMIT; without it every match is answered (a lookup's at once, others streamed). */
  limit?: number;
  /** Only people with an id greater than this (keyset paging). */
  after?: number;
  /**
   * Runs once the input is found good and before any person is read, told whether the search is
   * a lookup and whether it is a long stream (unpaged, not a lookup: every match, batch by batch):
   * GET /people waits there for its key's turn (none for a long stream, which has limits of its
   * own) and, to read a large page, its heavy turn (SPEC §4), and takes its Changes-Cursor
   * (SPEC §7), so that a request refused a turn reads nothing.
   */
  beforeRead?: (read: { lookup: boolean; longStream: boolean }) => Promise<void>;
}

/** People as the API shows them, already rendered as JSON text (the read model). */
export type SearchPeopleOutput = { today: string } & (
  | { kind: 'page'; people: RenderedPerson[]; nextAfter: number | null }
  /** Every match, read in one statement: an unpaged lookup's person or handful. */
  | { kind: 'whole'; people: RenderedPerson[] }
  /**
   * Every match, read batch by batch as they are sent. `lookup`: a lookup that found more people
   * than it reads at once, not one of the long downloads.
   */
  | { kind: 'stream'; people: AsyncIterable<RenderedPerson>; lookup: boolean }
);

/**
 * What an unpaged lookup reads in its one statement, answered like a page: the largest one. A
 * lookup finds a person (chat_id is unique) or a handful (people who share an address): one that
 * finds this many or more goes on as a stream after them, so that any number of matches is still
 * answered in full.
 */
export const WHOLE_LOOKUP_SIZE = MAX_PAGE_LIMIT;

export class SearchPeople {
  constructor(
    private readonly people: PersonRepository,
    private readonly clock: Clock,
    private readonly grace: Grace,
  ) {}

  async execute({ filter, limit, after, beforeRead }: SearchPeopleInput): Promise<SearchPeopleOutput> {
    if (limit !== undefined) checkPageLimit(limit);
    const lookup = isLookup(filter);
    const longStream = limit === undefined && !lookup;
    await beforeRead?.({ lookup, longStream });
    // One date for the whole answer, so "current" means the same for every person in it.
    const today = this.clock.today();
    const query = { filter, today, grace: this.grace, after, lookup };
    if (longStream) return { today, kind: 'stream', people: this.people.streamRendered(query), lookup };
    // The chat bot asks lookups unpaged, many a second: answered like a page, one statement, not
    // through a stream's batches.
    if (limit === undefined) return this.lookup(query);

    // One more than asked tells whether another page exists without a count query.
    const found = await this.people.searchRendered(query, limit + 1);
    const people = found.slice(0, limit);
    const nextAfter = found.length > limit ? people[people.length - 1].id : null;
    return { today, kind: 'page', people, nextAfter };
  }

  private async lookup(query: PersonQuery): Promise<SearchPeopleOutput> {
    const { today } = query;
    const found = await this.people.searchRendered(query, WHOLE_LOOKUP_SIZE);
    if (found.length < WHOLE_LOOKUP_SIZE) return { today, kind: 'whole', people: found };
    const rest = this.people.streamRendered({ ...query, after: found[found.length - 1].id });
    return { today, kind: 'stream', people: concat(found, rest), lookup: true };
  }
}

async function* concat<T>(first: T[], rest: AsyncIterable<T>): AsyncIterable<T> {
  yield* first;
  yield* rest;
}
