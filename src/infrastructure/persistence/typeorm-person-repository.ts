import type { EntityManager, Repository } from 'typeorm';
import type { NewPerson, PersonQuery, PersonRepository } from '../../application/ports/person-repository';
import { NotFound } from '../../domain/errors';
import type { Person, PersonChanges } from '../../domain/person';
import { foldCase } from '../../domain/text';
import type { ConcurrencyLimit } from './concurrency-limit';
import { withDatabaseErrors } from './database-errors';
import { personFilterSql, type SqlCondition } from './person-filter-sql';
import { PERSON_COLUMNS, type PersonRecord, toPerson } from './person-rows';
import { type PersonRow, PersonSchema } from './schemas/person-schema';

/**
 * Streams read this many people per statement, each batch a fresh keyset query: no cursor holds
 * a connection between batches (PGlite has only one, which other requests need meanwhile).
 */
const STREAM_BATCH_SIZE = 1000;

/** People per INSERT: arrays travel as one parameter each, so this bounds memory, not parameters. */
const INSERT_CHUNK_SIZE = 5000;

/** What the email filter compares: an email's folded value; other kinds have none. */
function foldedValue(contact: { kind: string; value: string }): string | null {
  return contact.kind === 'email' ? foldCase(contact.value) : null;
}

/** How streams share the database with lookups, however many of them run. */
export interface StreamSharing {
  /** Batches after a stream's first wait for a place in it (lookups and first batches never do). */
  lane: ConcurrencyLimit;
  /** People per batch after the first: what a lookup may have to wait behind. */
  laterBatchSize: number;
}

/**
 * People with their contacts and memberships are read and inserted by SQL (one statement a page,
 * one a table for a bulk insert; see docs/decisions.md, "Persistence"); changes to the people row
 * alone go through the Repository API.
 */
export class TypeOrmPersonRepository implements PersonRepository {
  private readonly people: Repository<PersonRow>;

  constructor(
    private readonly manager: EntityManager,
    /** How streams share the database with everyone else; none: they do not wait for each other. */
    private readonly sharing?: StreamSharing,
  ) {
    this.people = manager.getRepository(PersonSchema);
  }

  search(query: PersonQuery, limit: number): Promise<Person[]> {
    return withDatabaseErrors(() => this.select(this.condition(query, query.after), limit));
  }

  async *stream(query: PersonQuery): AsyncIterable<Person> {
    yield* this.batches((after) => this.condition(query, after), query.after);
  }

  async *streamAll(): AsyncIterable<Person> {
    yield* this.batches((after) =>
      after === undefined ? { sql: 'TRUE', params: [] } : { sql: 'p.id > $1', params: [after] },
    );
  }

  findById(id: number): Promise<Person | null> {
    return withDatabaseErrors(
      async () => (await this.select({ sql: 'p.id = $1', params: [id] }, 1))[0] ?? null,
    );
  }

  findByIdForUpdate(id: number): Promise<Person | null> {
    return withDatabaseErrors(async () => {
      const rows: PersonRecord[] = await this.manager.query(
        `SELECT ${PERSON_COLUMNS} FROM people p WHERE p.id = $1 FOR UPDATE OF p`,
        [id],
      );
      return rows.length > 0 ? toPerson(rows[0]) : null;
    });
  }

  update(id: number, changes: PersonChanges): Promise<void> {
    return withDatabaseErrors(async () => {
      const { firstName, lastName } = changes;
      const { affected } = await this.people.update(
        { id },
        {
          ...changes,
          // The folded copies that name searches match (SPEC §1), written with the names.
          firstNameFolded: firstName === undefined ? undefined : foldCase(firstName),
          lastNameFolded: lastName === undefined ? undefined : foldCase(lastName),
          version: () => 'version + 1',
          updatedAt: () => 'now()',
        },
      );
      if (affected === 0) throw new NotFound(`person ${id} not found`);
    });
  }

  insertMany(people: NewPerson[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (people.length === 0) return;
      const clubIds = await this.clubIds(people.flatMap((p) => p.memberships.map((m) => m.club)));
      for (let start = 0; start < people.length; start += INSERT_CHUNK_SIZE) {
        await this.insertChunk(people.slice(start, start + INSERT_CHUNK_SIZE), clubIds);
      }
    });
  }

  chatIdsInUse(chatIds: string[]): Promise<string[]> {
    return withDatabaseErrors(async () => {
      if (chatIds.length === 0) return [];
      // One array parameter, however many ids: In() would send one parameter per id.
      const rows: { chat_id: string }[] = await this.manager.query(
        "SELECT chat_id FROM people WHERE chat_id = ANY($1::text[]) AND role = 'member' ORDER BY chat_id",
        [chatIds],
      );
      return rows.map((row) => row.chat_id);
    });
  }

  /** Every person, admins included. */
  count(): Promise<number> {
    return withDatabaseErrors(() => this.people.count());
  }

  private condition(query: PersonQuery, after: number | undefined): SqlCondition {
    return personFilterSql(query.filter, { today: query.today, after, visibleOnly: true });
  }

  private async select(condition: SqlCondition, limit: number): Promise<Person[]> {
    const rows: PersonRecord[] = await this.manager.query(
      `SELECT ${PERSON_COLUMNS} FROM people p WHERE ${condition.sql} ORDER BY p.id LIMIT $${condition.params.length + 1}`,
      [...condition.params, limit],
    );
    return rows.map(toPerson);
  }

  private async *batches(
    conditionAfter: (after: number | undefined) => SqlCondition,
    start?: number,
  ): AsyncIterable<Person> {
    let after = start;
    for (let first = true; ; first = false) {
      // The first batch runs at once, like a page: it is all that a lookup or a short list needs.
      // Only long streams read more, and those batches take turns.
      const size = first ? STREAM_BATCH_SIZE : (this.sharing?.laterBatchSize ?? STREAM_BATCH_SIZE);
      const read = () => this.select(conditionAfter(after), size);
      const lane = first ? undefined : this.sharing?.lane;
      const batch = await withDatabaseErrors(() => lane?.run(read) ?? read());
      yield* batch;
      if (batch.length < size) return;
      after = batch[batch.length - 1].id;
    }
  }

  /** Ids of the named clubs, creating the missing ones. */
  private async clubIds(names: string[]): Promise<Map<string, number>> {
    const unique = [...new Set(names)];
    if (unique.length === 0) return new Map();
    await this.manager.query(
      'INSERT INTO clubs (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING',
      [unique],
    );
    const rows: { id: number; name: string }[] = await this.manager.query(
      'SELECT id, name FROM clubs WHERE name = ANY($1::text[])',
      [unique],
    );
    return new Map(rows.map((row) => [row.name, row.id]));
  }

  private async insertChunk(people: NewPerson[], clubIds: Map<string, number>): Promise<void> {
    // Ids are drawn first so that contacts and memberships can refer to them without relying on
    // the order of RETURNING. Sorted, so that people keep the order they came in.
    const idRows: { id: number }[] = await this.manager.query(
      `SELECT nextval(pg_get_serial_sequence('people', 'id'))::int AS id FROM generate_series(1, $1::int)`,
      [people.length],
    );
    const ids = idRows.map((row) => row.id).sort((a, b) => a - b);

    await this.manager.query(
      `INSERT INTO people (id, role, first_name, last_name, chat_id, planner_id, first_name_folded, last_name_folded)
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`,
      [
        ids,
        people.map((p) => p.role),
        people.map((p) => p.firstName),
        people.map((p) => p.lastName),
        people.map((p) => p.chatId),
        people.map((p) => p.plannerId),
        people.map((p) => foldCase(p.firstName)),
        people.map((p) => foldCase(p.lastName)),
      ],
    );

    const contacts = people.flatMap((p, i) => p.contacts.map((c) => ({ personId: ids[i], ...c })));
    if (contacts.length > 0) {
      await this.manager.query(
        `INSERT INTO contacts (person_id, kind, value, label, value_folded)
         SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[])`,
        [
          contacts.map((c) => c.personId),
          contacts.map((c) => c.kind),
          contacts.map((c) => c.value),
          contacts.map((c) => c.label),
          contacts.map(foldedValue),
        ],
      );
    }

    const memberships = people.flatMap((p, i) => p.memberships.map((m) => ({ personId: ids[i], ...m })));
    if (memberships.length > 0) {
      await this.manager.query(
        `INSERT INTO memberships (person_id, club_id, kind, start_date, end_date)
         SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::date[], $5::date[])`,
        [
          memberships.map((m) => m.personId),
          memberships.map((m) => clubIds.get(m.club)),
          memberships.map((m) => m.kind),
          memberships.map((m) => m.startDate),
          memberships.map((m) => m.endDate),
        ],
      );
    }
  }
}
