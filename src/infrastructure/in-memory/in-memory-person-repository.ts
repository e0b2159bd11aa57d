import { type Grace, NO_GRACE } from '../../domain/grace';
import { GOOD_STANDINGS, hasStanding, personStanding, type Standing } from '../../domain/standing';
import type { Clock } from '../../application/ports/clock';
import type {
  NewPerson,
  PersonIdentity,
  PersonQuery,
  Lookalike,
  PersonReplacement,
  PersonRepository,
  RenderedPerson,
} from '../../application/ports/person-repository';
import { personView } from '../../application/people/person-view';
import { compareContacts } from '../../domain/contact';
import { Conflict, NotFound } from '../../domain/errors';
import { isCurrent, isEndingBefore, lastsUntil } from '../../domain/membership';
import {
  ERASED_NAME,
  isVisible,
  type Person,
  type PersonChanges,
  type PersonFields,
} from '../../domain/person';
import type { PersonFilter } from '../../domain/person-filter';
import { foldCase } from '../../domain/text';
import { type InMemoryStore, type StoredPerson, copyPerson } from './in-memory-store';

const BATCH_SIZE = 100;

/** The database adapter's words (database-errors.ts), which the contract suite holds both to. */
const CHAT_ID_TAKEN = 'chat_id is already used by another person';
const MEMBER_NUMBER_TAKEN = 'member_number is already used by another person';

function identity(person: StoredPerson): PersonIdentity {
  return {
    id: person.id,
    role: person.role,
    erased: person.erased,
    chatId: person.chatId,
    memberNumber: person.memberNumber,
    hasAccount: person.account !== null,
    firstName: person.firstName,
    lastName: person.lastName,
  };
}

/**
 * The matching rules of SPEC §2, as the SQL adapter applies them: case-insensitive is the same
 * foldCase on both sides, substring for names (LIKE '%...%' there) and equality for emails.
 */
export function matchesFilter(person: Person, filter: PersonFilter, today: string, grace: Grace): boolean {
  const { email, firstName, lastName, chatId, memberNumber, active, hasChat, hasPlanner, endingBefore } =
    filter;
  if (
    email !== undefined &&
    !person.contacts.some((c) => c.kind === 'email' && foldCase(c.value) === foldCase(email))
  ) {
    return false;
  }
  if (firstName !== undefined && !foldCase(person.firstName).includes(foldCase(firstName))) return false;
  if (lastName !== undefined && !foldCase(person.lastName).includes(foldCase(lastName))) return false;
  if (chatId !== undefined && person.chatId !== chatId) return false;
  if (memberNumber !== undefined && person.memberNumber !== memberNumber) return false;
  if (active !== undefined && person.memberships.some((m) => isCurrent(m, today)) !== (active === 'yes')) {
    return false;
  }
  if (hasChat !== undefined && (person.chatId !== null) !== hasChat) return false;
  if (hasPlanner !== undefined && (person.plannerId !== null) !== hasPlanner) return false;
  if (endingBefore !== undefined && !isEndingBefore(person.memberships, today, endingBefore)) return false;
  const { standing, inGoodStanding } = filter;
  if (standing !== undefined && !hasStanding(person.memberships, today, grace, standing)) return false;
  if (
    inGoodStanding !== undefined &&
    hasStanding(person.memberships, today, grace, GOOD_STANDINGS) !== inGoodStanding
  ) {
    return false;
  }
  return true;
}

function sortChildren(person: StoredPerson): void {
  person.contacts.sort(compareContacts);
  person.memberships.sort((a, b) =>
    a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.id - b.id,
  );
}

function render(person: Person, { today, grace = NO_GRACE }: PersonQuery): RenderedPerson {
  return { id: person.id, json: JSON.stringify(personView(person, today, grace)) };
}

export class InMemoryPersonRepository implements PersonRepository {
  /** The clock stamps when memberships were written, which the calendar reads. */
  constructor(
    private readonly store: InMemoryStore,
    private readonly clock: Pick<Clock, 'now'> = { now: () => new Date() },
  ) {}

  async search(query: PersonQuery, limit: number): Promise<Person[]> {
    const found: Person[] = [];
    for (const person of this.byId()) {
      if (found.length >= limit) break;
      if (query.after !== undefined && person.id <= query.after) continue;
      if (isVisible(person) && matchesFilter(person, query.filter, query.today, query.grace ?? NO_GRACE))
        found.push(copyPerson(person));
    }
    return found;
  }

  async *stream(query: PersonQuery): AsyncIterable<Person> {
    // Batches by keyset, like the database adapter, so changes between batches behave the same.
    let after = query.after;
    while (true) {
      const batch = await this.search({ ...query, after }, BATCH_SIZE);
      yield* batch;
      if (batch.length < BATCH_SIZE) return;
      after = batch[batch.length - 1].id;
    }
  }

  async searchRendered(query: PersonQuery, limit: number): Promise<RenderedPerson[]> {
    return (await this.search(query, limit)).map((person) => render(person, query));
  }

  async *streamRendered(query: PersonQuery): AsyncIterable<RenderedPerson> {
    for await (const person of this.stream(query)) yield render(person, query);
  }

  async *streamAll(): AsyncIterable<Person> {
    for (const person of this.byId()) if (!person.erased) yield copyPerson(person);
  }

  async findMany(ids: number[]): Promise<Person[]> {
    const wanted = new Set(ids);
    return this.byId()
      .filter((p) => wanted.has(p.id))
      .map(copyPerson);
  }

  async findIdentities(keys: {
    ids: number[];
    memberNumbers: string[];
    chatIds: string[];
  }): Promise<PersonIdentity[]> {
    const ids = new Set(keys.ids);
    const numbers = new Set(keys.memberNumbers);
    const chatIds = new Set(keys.chatIds);
    return this.byId()
      .filter(
        (p) =>
          ids.has(p.id) ||
          (p.memberNumber !== null && numbers.has(p.memberNumber)) ||
          (p.chatId !== null && p.role === 'member' && chatIds.has(p.chatId)),
      )
      .map(identity);
  }

  /** Units run one after another here: nothing else can hold the people meanwhile. */
  lockIdentities(ids: number[]): Promise<PersonIdentity[]> {
    return this.findIdentities({ ids, memberNumbers: [], chatIds: [] });
  }

  async membersOtherThan(ids: number[]): Promise<PersonIdentity[]> {
    const named = new Set(ids);
    return this.byId()
      .filter((p) => isVisible(p) && !named.has(p.id))
      .map(identity);
  }

  async findLookalikes(keys: {
    emails: string[];
    names: { first: string; last: string }[];
  }): Promise<Lookalike[]> {
    const emails = new Set(keys.emails);
    const names = new Set(keys.names.map((n) => JSON.stringify([n.first, n.last])));
    const found: Lookalike[] = [];
    for (const p of this.byId()) {
      if (!isVisible(p)) continue;
      const folded = {
        id: p.id,
        firstName: p.firstName,
        lastName: p.lastName,
        foldedFirstName: foldCase(p.firstName),
        foldedLastName: foldCase(p.lastName),
        foldedEmails: p.contacts
          .filter((c) => c.kind === 'email' && emails.has(foldCase(c.value)))
          .map((c) => foldCase(c.value)),
      };
      if (
        folded.foldedEmails.length > 0 ||
        names.has(JSON.stringify([folded.foldedFirstName, folded.foldedLastName]))
      ) {
        found.push(folded);
      }
    }
    return found;
  }

  async membersWhoLeftBefore(date: string): Promise<PersonIdentity[]> {
    return this.byId()
      .filter(
        (p) =>
          isVisible(p) &&
          p.account === null &&
          p.memberships.length > 0 &&
          !p.memberships.some((m) => lastsUntil(m, date)),
      )
      .map(identity);
  }

  async standingsOf(ids: number[], today: string, grace: Grace): Promise<Map<number, Standing>> {
    const standings = new Map<number, Standing>();
    for (const id of ids) {
      const person = this.store.state.people.get(id);
      if (person !== undefined) standings.set(id, personStanding(person.memberships, today, grace));
    }
    return standings;
  }

  async releaseIdentifiers(chatIdsOf: number[], memberNumbersOf: number[]): Promise<void> {
    for (const id of chatIdsOf) {
      const person = this.store.state.people.get(id);
      if (person) person.chatId = null;
    }
    for (const id of memberNumbersOf) {
      const person = this.store.state.people.get(id);
      if (person) person.memberNumber = null;
    }
  }

  async replaceMany(replacements: PersonReplacement[]): Promise<void> {
    for (const replacement of replacements) {
      const person = this.store.state.people.get(replacement.id);
      if (!person) throw new NotFound(`person ${replacement.id} not found`);
      const { fields } = replacement;
      if (fields.chatId !== undefined && fields.chatId !== null && isVisible(person)) {
        this.assertChatIdFree(fields.chatId, person.id);
      }
      if (fields.memberNumber !== undefined && fields.memberNumber !== null) {
        this.assertMemberNumberFree(fields.memberNumber, person.id);
      }
      Object.assign(person, fields);
      const removedContacts = new Set(replacement.removeContacts);
      const removedMemberships = new Set(replacement.removeMemberships);
      const changedContacts = new Map(replacement.changeContacts.map((c) => [c.id, c.value]));
      person.contacts = [
        ...person.contacts
          .filter((c) => !removedContacts.has(c.id))
          .map((c) => (changedContacts.has(c.id) ? { ...c, value: changedContacts.get(c.id) as string } : c)),
        ...replacement.addContacts.map((c) => ({ id: this.store.id('contact'), ...c })),
      ];
      const added = replacement.addMemberships.map((m) => ({
        id: this.store.id('membership'),
        club: { ...this.club(m.club) },
        kind: m.kind,
        startDate: m.startDate,
        endDate: m.endDate,
      }));
      person.memberships = [...person.memberships.filter((m) => !removedMemberships.has(m.id)), ...added];
      for (const m of added) {
        this.store.state.calendar.set(m.id, {
          startAnnounced: false,
          endAnnounced: false,
          writtenAt: this.clock.now(),
        });
      }
      sortChildren(person);
      person.version += 1;
    }
  }

  async erase(ids: number[]): Promise<void> {
    for (const id of ids) {
      const person = this.store.state.people.get(id);
      if (!person) continue;
      Object.assign(person, {
        firstName: ERASED_NAME,
        lastName: ERASED_NAME,
        chatId: null,
        plannerId: null,
        memberNumber: null,
        contacts: [],
        erased: true,
      });
      person.version += 1;
      // As the database adapter: the calendar has nothing more to announce of them.
      for (const membership of person.memberships) {
        const state = this.store.state.calendar.get(membership.id);
        if (state)
          Object.assign(state, {
            startAnnounced: true,
            endAnnounced: true,
            lapseAnnounced: state.lapseAnnounced ?? membership.endDate,
          });
      }
    }
  }

  async findById(id: number): Promise<Person | null> {
    const person = this.store.state.people.get(id);
    return person ? copyPerson(person) : null;
  }

  async findFieldsById(id: number): Promise<PersonFields | null> {
    const person = await this.findById(id);
    if (person === null) return null;
    const { contacts: _contacts, memberships: _memberships, ...fields } = person;
    return fields;
  }

  // Units of work run one at a time here, so reading is already as good as locking.
  findByIdForUpdate(id: number): Promise<Person | null> {
    return this.findById(id);
  }

  async update(id: number, changes: PersonChanges): Promise<void> {
    const person = this.store.state.people.get(id);
    if (!person) throw new NotFound(`person ${id} not found`);
    if (changes.chatId !== undefined && changes.chatId !== null && isVisible(person)) {
      this.assertChatIdFree(changes.chatId, id);
    }
    if (changes.firstName !== undefined) person.firstName = changes.firstName;
    if (changes.lastName !== undefined) person.lastName = changes.lastName;
    if (changes.chatId !== undefined) person.chatId = changes.chatId;
    person.version += 1;
  }

  /** Nothing to set aside in memory. */
  async beginBulkInsert(): Promise<void> {}

  async endBulkInsert(): Promise<void> {}

  async insertMany(people: NewPerson[]): Promise<number[]> {
    const { state } = this.store;
    const incoming = new Set<string>();
    const numbers = new Set<string>();
    for (const person of people) {
      const memberNumber = person.memberNumber ?? null;
      if (memberNumber !== null) {
        this.assertMemberNumberFree(memberNumber, null);
        if (numbers.has(memberNumber)) throw new Conflict(MEMBER_NUMBER_TAKEN);
        numbers.add(memberNumber);
      }
      if (person.chatId === null || !isVisible(person)) continue;
      this.assertChatIdFree(person.chatId, null);
      if (incoming.has(person.chatId)) throw new Conflict(CHAT_ID_TAKEN);
      incoming.add(person.chatId);
    }
    const ids: number[] = [];
    const writtenAt = this.clock.now();
    for (const person of people) {
      const stored: StoredPerson = {
        id: this.store.id('person'),
        role: person.role,
        firstName: person.firstName,
        lastName: person.lastName,
        chatId: person.chatId,
        plannerId: person.plannerId,
        memberNumber: person.memberNumber ?? null,
        erased: false,
        version: 1,
        contacts: person.contacts.map((c) => ({ id: this.store.id('contact'), ...c })),
        memberships: person.memberships.map((m) => ({
          id: this.store.id('membership'),
          club: { ...this.club(m.club) },
          kind: m.kind,
          startDate: m.startDate,
          endDate: m.endDate,
        })),
        account: null,
      };
      sortChildren(stored);
      state.people.set(stored.id, stored);
      ids.push(stored.id);
      for (const m of stored.memberships) {
        state.calendar.set(m.id, {
          startAnnounced: false,
          endAnnounced: false,
          writtenAt: new Date(writtenAt),
        });
      }
    }
    return ids;
  }

  async chatIdsInUse(chatIds: string[]): Promise<string[]> {
    const wanted = new Set(chatIds);
    const used: string[] = [];
    for (const person of this.store.state.people.values()) {
      if (person.chatId !== null && isVisible(person) && wanted.has(person.chatId)) used.push(person.chatId);
    }
    return used;
  }

  /** Every person, admins included. */
  async count(): Promise<number> {
    return this.store.state.people.size;
  }

  private byId(): StoredPerson[] {
    return [...this.store.state.people.values()].sort((a, b) => a.id - b.id);
  }

  /** chat_id is unique among visible people, as the database's partial unique index has it. */
  private assertChatIdFree(chatId: string, exceptId: number | null): void {
    for (const other of this.store.state.people.values()) {
      if (other.id !== exceptId && other.chatId === chatId && isVisible(other)) {
        throw new Conflict(CHAT_ID_TAKEN);
      }
    }
  }

  private assertMemberNumberFree(memberNumber: string, exceptId: number | null): void {
    for (const other of this.store.state.people.values()) {
      if (other.id !== exceptId && other.memberNumber === memberNumber)
        throw new Conflict(MEMBER_NUMBER_TAKEN);
    }
  }

  private club(name: string) {
    const { clubs } = this.store.state;
    let club = clubs.get(name);
    if (!club) {
      club = { id: this.store.id('club'), name };
      clubs.set(name, club);
    }
    return club;
  }
}
