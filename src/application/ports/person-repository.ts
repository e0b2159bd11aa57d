import type { Person, PersonChanges } from '../../domain/person';
import type { CheckedRecord } from '../../domain/person-record';
import type { PersonFilter } from '../../domain/person-filter';

export interface PersonQuery {
  filter: PersonFilter;
  /** The directory's calendar date, `YYYY-MM-DD`, that decides which memberships are current. */
  today: string;
  /** Only people with an id greater than this (keyset paging). */
  after?: number;
}

/** A person as the import brings it, checked: clubs by name, no ids yet. */
export type NewPerson = CheckedRecord;

export interface PersonRepository {
  /** Visible people (admins excluded) matching the query, by id ascending, at most `limit`. */
  search(query: PersonQuery, limit: number): Promise<Person[]>;
  /**
   * Every visible match by id ascending, read from the store in batches so that memory does not
   * grow with the size of the result.
   */
  stream(query: PersonQuery): AsyncIterable<Person>;
  /** Every person, admins included, by id ascending, in batches (for export). */
  streamAll(): AsyncIterable<Person>;
  /** A person by id, admins included (the caller decides what may be seen). */
  findById(id: number): Promise<Person | null>;
  /** Like findById, and locks the person until the surrounding unit of work ends. */
  findByIdForUpdate(id: number): Promise<Person | null>;
  /**
   * Applies the changes and increments the version. Throws Conflict when chat_id is taken: it is
   * unique among the people the API shows, so an admin's never stands in a member's way.
   */
  update(id: number, changes: PersonChanges): Promise<void>;
  /**
   * Inserts people with their contacts and memberships, creating clubs by name as needed. Throws
   * Conflict when a visible person's chat_id is taken by another visible person.
   */
  insertMany(people: NewPerson[]): Promise<void>;
  /** Which of these chat_ids some visible person (a member, not an admin) already has, in any order. */
  chatIdsInUse(chatIds: string[]): Promise<string[]>;
  count(): Promise<number>;
}
