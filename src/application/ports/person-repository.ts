import type { ContactKind } from '../../domain/contact';
import type { Grace } from '../../domain/grace';
import type { Standing } from '../../domain/standing';
import type { Person, PersonChanges, PersonFields, Role } from '../../domain/person';
import type { PersonFilter } from '../../domain/person-filter';

/**
 * A person already rendered as the JSON text of its view (PersonView, in
 * src/application/people/person-view.ts), with its id for paging.
 */
export interface RenderedPerson {
  id: number;
  json: string;
}

export interface PersonQuery {
  filter: PersonFilter;
  /** The directory's calendar date, `YYYY-MM-DD`, that decides which memberships are current. */
  today: string;
  /**
   * The grace setting, which with `today` decides each person's standing (SPEC §10); absent, none
   * (GRACE_DAYS=0): for reads that neither render people nor filter by standing.
   */
  grace?: Grace;
  /** Only people with an id greater than this (keyset paging). */
  after?: number;
  /**
   * The filter is a lookup (isLookup, decided by the search): it finds a person or a handful, so
   * it is read in one statement, planned once however often it is asked.
   */
  lookup?: boolean;
}

export interface NewContact {
  kind: ContactKind;
  value: string;
  label: string | null;
}

export interface NewMembership {
  /** The club's name: clubs are created by name as needed. */
  club: string;
  kind: string | null;
  startDate: string;
  endDate: string | null;
}

/** A person as the import brings it, checked: clubs by name, no ids yet. */
export interface NewPerson {
  role: Role;
  firstName: string;
  lastName: string;
  chatId: string | null;
  plannerId: string | null;
  /** Absent: not set. */
  memberNumber?: string | null;
  contacts: NewContact[];
  memberships: NewMembership[];
}

/** What the import checks about a person before it changes anyone. */
export interface PersonIdentity {
  id: number;
  role: Role;
  erased: boolean;
  chatId: string | null;
  memberNumber: string | null;
  /** Holds login credentials: never erased by an import or a retention run. */
  hasAccount: boolean;
  firstName: string;
  lastName: string;
}

/** A member who may be the same person as one an import adds: what the comparison needs. */
export interface Lookalike {
  id: number;
  firstName: string;
  lastName: string;
  /** Case-folded (foldCase) names and email values, as the comparison uses them. */
  foldedFirstName: string;
  foldedLastName: string;
  foldedEmails: string[];
}

/** Changes that make a person match an import record; the repository increments the version. */
export interface PersonReplacement {
  id: number;
  /** Only the fields that change. */
  fields: Partial<Pick<Person, 'firstName' | 'lastName' | 'chatId' | 'plannerId' | 'memberNumber'>>;
  /** Ids of the contacts and memberships to delete; the others keep theirs. */
  removeContacts: number[];
  addContacts: NewContact[];
  /** Contacts whose value changes in place, keeping their id, kind and label (a sheet's first email). */
  changeContacts: { id: number; value: string }[];
  removeMemberships: number[];
  addMemberships: NewMembership[];
}

export interface PersonRepository {
  /** Visible people (admins and erased people excluded) matching the query, by id ascending, at most `limit`. */
  search(query: PersonQuery, limit: number): Promise<Person[]>;
  /**
   * Every visible match by id ascending, read from the store in batches so that memory does not
   * grow with the size of the result.
   */
  stream(query: PersonQuery): AsyncIterable<Person>;
  /**
   * Like search, each person already rendered as the JSON text of its view on `query.today`:
   * exactly `JSON.stringify(personView(person, today, grace))` (the read model that answers searches).
   */
  searchRendered(query: PersonQuery, limit: number): Promise<RenderedPerson[]>;
  /** Like stream, rendered as searchRendered renders. */
  streamRendered(query: PersonQuery): AsyncIterable<RenderedPerson>;
  /** Every person not erased, admins included, by id ascending, in batches (for export). */
  streamAll(): AsyncIterable<Person>;
  /** A person by id, admins included (the caller decides what may be seen). */
  findById(id: number): Promise<Person | null>;
  /** Like findById, without contacts and memberships: what an update decides on, read cheaply. */
  findFieldsById(id: number): Promise<PersonFields | null>;
  /** Like findById, and locks the person until the surrounding unit of work ends. */
  findByIdForUpdate(id: number): Promise<Person | null>;
  /**
   * Applies the changes and increments the version. Throws Conflict when chat_id is taken: it is
   * unique among the people the API shows, so an admin's never stands in a member's way.
   */
  update(id: number, changes: PersonChanges): Promise<void>;
  /**
   * Inserts people with their contacts and memberships, creating clubs by name as needed, and
   * answers their new ids in the order given. Throws Conflict when a visible person's chat_id is
   * taken by another visible person, or a member_number by anyone.
   */
  insertMany(people: NewPerson[]): Promise<number[]>;
  /**
   * In a unit of work, before `count` people are added by insertMany: when that is many more
   * than the directory holds (a first import), the store may set its search indexes and its
   * checks of what contacts and memberships refer to aside, to be built and made again by
   * `endBulkInsert` before the unit of work ends; building an index, or checking a reference over a
   * whole table, once is many times cheaper than row by row. No person may be deleted in between.
   */
  beginBulkInsert(count: number): Promise<void>;
  /** Builds and checks again whatever beginBulkInsert set aside. */
  endBulkInsert(): Promise<void>;
  /** People by id, admins and erased people included, by id ascending; unknown ids are left out. */
  findMany(ids: number[]): Promise<Person[]>;
  /**
   * Everyone (admins and erased included) with one of these ids or member numbers, and the members
   * (not admins) with one of these chat_ids, by id ascending.
   */
  findIdentities(keys: {
    ids: number[];
    memberNumbers: string[];
    chatIds: string[];
  }): Promise<PersonIdentity[]>;
  /**
   * The people with these ids (admins and erased included; unknown ids are left out), by id
   * ascending, each locked until the unit of work ends, in id order (so that units locking several
   * people never wait for each other in a circle). What it answers is as committed when the lock
   * was granted: a unit that erased or changed them meanwhile has ended, and one that comes later
   * waits for this one. What a unit reads before writing people by id, when another may erase them.
   */
  lockIdentities(ids: number[]): Promise<PersonIdentity[]>;
  /**
   * The members (neither admins nor erased) with an email whose case-folded value is one of
   * `emails`, or whose case-folded first and last names are one of `names` (both folded by
   * foldCase), by id ascending: who a person an import adds may already be.
   */
  findLookalikes(keys: { emails: string[]; names: { first: string; last: string }[] }): Promise<Lookalike[]>;
  /** The members (neither admins nor erased) whose id is not one of these, by id ascending. */
  membersOtherThan(ids: number[]): Promise<PersonIdentity[]>;
  /**
   * The members without an account, not erased, who have memberships and all of whose
   * memberships ended before `date` (YYYY-MM-DD), by id ascending.
   */
  membersWhoLeftBefore(date: string): Promise<PersonIdentity[]>;
  /** The standing (SPEC §10) of each of these people on `today` under `grace`, by id. */
  standingsOf(ids: number[], today: string, grace: Grace): Promise<Map<number, Standing>>;
  /**
   * Sets chat_id (of the first list) and member_number (of the second) to null, without a new
   * version: a step of a transaction that gives them new values, so that two people can swap them.
   */
  releaseIdentifiers(chatIdsOf: number[], memberNumbersOf: number[]): Promise<void>;
  /**
   * Applies each replacement. Throws Conflict when a chat_id or member_number is taken.
   */
  replaceMany(replacements: PersonReplacement[]): Promise<void>;
  /**
   * Anonymises the people (SPEC §8): names become "erased", chat_id, planner_id and member_number
   * null, contacts deleted; memberships stay. The account, if any, is the caller's to take away
   * first. Within a unit of work: once it commits, the store rewrites what held the erased values
   * (old row versions, index entries, statistics) before `run` returns.
   */
  erase(ids: number[]): Promise<void>;
  /** Which of these chat_ids some visible person (a member, not an admin) already has, in any order. */
  chatIdsInUse(chatIds: string[]): Promise<string[]>;
  count(): Promise<number>;
}
