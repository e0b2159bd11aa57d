import type { NewPerson, PersonQuery, PersonRepository } from '../../application/ports/person-repository';
import { compareContacts } from '../../domain/contact';
import { Conflict, NotFound } from '../../domain/errors';
import { isCurrent } from '../../domain/membership';
import { isVisible, type Person, type PersonChanges } from '../../domain/person';
import type { PersonFilter } from '../../domain/person-filter';
import { foldCase } from '../../domain/text';
import { type InMemoryStore, type StoredPerson, toPerson } from './in-memory-store';

const BATCH_SIZE = 100;

/** The database adapter's words (database-errors.ts), which the contract suite holds both to. */
const CHAT_ID_TAKEN = 'chat_id is already used by another person';

/**
 * The matching rules of SPEC §2, as the SQL adapter applies them: case-insensitive is the same
 * foldCase on both sides, substring for names (LIKE '%...%' there) and equality for emails.
 */
export function matchesFilter(person: Person, filter: PersonFilter, today: string): boolean {
  const { email, firstName, lastName, chatId, active, hasChat, hasPlanner } = filter;
  if (
    email !== undefined &&
    !person.contacts.some((c) => c.kind === 'email' && foldCase(c.value) === foldCase(email))
  ) {
    return false;
  }
  if (firstName !== undefined && !foldCase(person.firstName).includes(foldCase(firstName))) return false;
  if (lastName !== undefined && !foldCase(person.lastName).includes(foldCase(lastName))) return false;
  if (chatId !== undefined && person.chatId !== chatId) return false;
  if (active !== undefined && person.memberships.some((m) => isCurrent(m, today)) !== (active === 'yes')) {
    return false;
  }
  if (hasChat !== undefined && (person.chatId !== null) !== hasChat) return false;
  if (hasPlanner !== undefined && (person.plannerId !== null) !== hasPlanner) return false;
  return true;
}

function sortChildren(person: StoredPerson): void {
  person.contacts.sort(compareContacts);
  person.memberships.sort((a, b) =>
    a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.id - b.id,
  );
}

export class InMemoryPersonRepository implements PersonRepository {
  constructor(private readonly store: InMemoryStore) {}

  async search(query: PersonQuery, limit: number): Promise<Person[]> {
    const found: Person[] = [];
    for (const person of this.byId()) {
      if (found.length >= limit) break;
      if (query.after !== undefined && person.id <= query.after) continue;
      if (isVisible(person) && matchesFilter(person, query.filter, query.today)) found.push(toPerson(person));
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

  async *streamAll(): AsyncIterable<Person> {
    for (const person of this.byId()) yield toPerson(person);
  }

  async findById(id: number): Promise<Person | null> {
    const person = this.store.state.people.get(id);
    return person ? toPerson(person) : null;
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

  async insertMany(people: NewPerson[]): Promise<void> {
    const { state } = this.store;
    const incoming = new Set<string>();
    for (const person of people) {
      if (person.chatId === null || !isVisible(person)) continue;
      this.assertChatIdFree(person.chatId, null);
      if (incoming.has(person.chatId)) throw new Conflict(CHAT_ID_TAKEN);
      incoming.add(person.chatId);
    }
    for (const person of people) {
      const stored: StoredPerson = {
        id: this.store.id('person'),
        role: person.role,
        firstName: person.firstName,
        lastName: person.lastName,
        chatId: person.chatId,
        plannerId: person.plannerId,
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
    }
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
