import type { EntityManager, Repository } from 'typeorm';
import { MAX_PAGE_LIMIT } from '../../application/page-limit';
import type {
  NewContact,
  NewMembership,
  NewPerson,
  PersonIdentity,
  PersonQuery,
  Lookalike,
  PersonReplacement,
  PersonRepository,
  RenderedPerson,
} from '../../application/ports/person-repository';
import { type Grace, NO_GRACE } from '../../domain/grace';
import { personStandingSql, type Standing } from '../../domain/standing';
import { NotFound } from '../../domain/errors';
import { lastsUntilSql } from '../../domain/membership';
import {
  ERASED_NAME,
  type Person,
  type PersonChanges,
  type PersonFields,
  type Role,
  visiblePersonSql,
} from '../../domain/person';
import { foldCase } from '../../domain/text';
import type { ConcurrencyLimit } from './concurrency-limit';
import { withDatabaseErrors } from './database-errors';
import { countErasure } from './sql-erasure-purge';
import { personFilterSql, type SqlCondition } from './person-filter-sql';
import { personJsonSql } from './person-json-sql';
import { PoolQueries } from './pool-queries';
import { NAMES_SET, nameColumns } from './person-update-sql';
import {
  PERSON_COLUMNS,
  PERSON_FIELD_COLUMNS,
  type PersonFieldsRow,
  type PersonSelectRow,
  toPerson,
  toPersonFields,
} from './person-select';
import { type PersonRow, PersonSchema } from './schemas/person-schema';

/**
 * Streams read this many people per statement, each batch a fresh keyset query: no cursor holds
 * a connection between batches (PGlite has only one, which other requests need meanwhile). A
 * first batch is read at once, like a page: the largest one.
 */
const STREAM_BATCH_SIZE = MAX_PAGE_LIMIT;

/**
 * A bulk insert sets the search indexes and the foreign keys of contacts and memberships aside
 * when it adds at least this many people, and at least BULK_INSERT_FACTOR times as many as the
 * directory holds: a first import. Its transaction then holds the tables (and clubs) exclusively
 * until it ends (DROP INDEX, DROP CONSTRAINT), which on an empty directory keeps no one from
 * anything they could have read.
 */
const BULK_INSERT_MIN = 10_000;
const BULK_INSERT_FACTOR = 4;

/** People per INSERT: arrays travel as one parameter each, so this bounds memory, not parameters. */
const INSERT_CHUNK_SIZE = 5000;

/** What the email filter compares: an email's folded value; other kinds have none. */
function foldedValue(contact: { kind: string; value: string }): string | null {
  return contact.kind === 'email' ? foldCase(contact.value) : null;
}

const MEMBERSHIP_INSERT_COLUMNS =
  'person_id, club_id, kind, start_date, end_date, start_announced, end_announced';

// Transitions long past when written are no turn of the calendar: the job would only mark them
// (AnnounceMembershipTransitions), so they are marked as they are written, and an import of a
// society's history leaves the job nothing to rewrite. "Long past" is before the day before today
// in UTC, which is before the day written in any time zone: the job's own cases at the boundary
// stay the job's. LONG_PAST_MARKS are the two flags of a membership `m`, `long_past` in scope.
const LONG_PAST = "(now() AT TIME ZONE 'UTC')::date - 1";
const LONG_PAST_MARKS = 'm.start_date < long_past, coalesce(m.end_date < long_past, false)';

const renderedSelects = new WeakMap<Grace, Map<string, string>>();

/**
 * The statement reading people as JSON text where `condition` holds, `$n+1` the date and `$n+2`
 * the limit, under `grace`. Built once per grace and condition: the text is long (the person rendered by the database),
 * and the same string each time lets the driver see at once that a named statement is the one
 * it prepared, where a new copy would be compared (and hashed) character by character.
 */
function renderedSelect(condition: SqlCondition, grace: Grace): string {
  let selects = renderedSelects.get(grace);
  if (selects === undefined) {
    selects = new Map();
    renderedSelects.set(grace, selects);
  }
  let sql = selects.get(condition.sql);
  if (sql === undefined) {
    const n = condition.params.length;
    sql = `SELECT p.id, ${personJsonSql(`$${n + 1}`, grace)} AS json FROM people p WHERE ${condition.sql} ORDER BY p.id LIMIT $${n + 2}`;
    // Conditions differ by the filter's shape, not its values (those are parameters): few.
    if (selects.size < 1000) selects.set(condition.sql, sql);
  }
  return sql;
}

/** How streams share the database with lookups, however many of them run. */
export interface StreamSharing {
  /** Batches after a stream's first wait for a place in it (lookups and first batches never do). */
  lane: ConcurrencyLimit;
  /** People per batch after the first: what a lookup may have to wait behind. */
  laterBatchSize: number;
  /**
   * Where the database runs one statement at a time (PGlite): a page larger than this is read in
   * parts of this many, so that another key's lookup waits behind a part, never a whole page of
   * 1000 (SPEC §4, fair sharing). Asked before each part: smaller while others are about.
   * Absent: a page is one statement.
   */
  pagePart?: () => number;
}

/**
 * People with their contacts and memberships are read and inserted by SQL (one statement a page,
 * one a table for a bulk insert; see docs/decisions.md, "Persistence"); changes to the people row
 * alone go through the Repository API.
 */
export class SqlPersonRepository implements PersonRepository {
  private readonly people: Repository<PersonRow>;
  /** Where searches are read (see PoolQueries). */
  private readonly reads: PoolQueries;
  /** Club ids found or made in this transaction; null outside one. */
  private readonly knownClubs: Map<string, number> | null;

  private readonly onErase: (() => void) | undefined;

  /** The indexes beginBulkInsert dropped, with how to build each again. */
  private setAside: { name: string; definition: string }[] = [];
  /** The foreign keys beginBulkInsert dropped: the table, and how to add each again. */
  private keysSetAside: { table: string; name: string; definition: string }[] = [];

  constructor(
    private readonly manager: EntityManager,
    /** How streams share the database with everyone else; none: they do not wait for each other. */
    private readonly sharing?: StreamSharing,
    /** Lookups as named prepared statements (see PoolQueries). */
    preparedLookups = false,
    /**
     * The manager is one transaction's: a club id found or made stays valid to its end (clubs are
     * never deleted), so each name is looked up once, not once per batch of an import. Outside a
     * transaction a club made by one that then rolled back would be remembered: no memory there.
     * `onErase`: told when people are erased, so that the unit of work purges after its commit.
     */
    options: { inTransaction?: boolean; onErase?: () => void } = {},
  ) {
    this.onErase = options.onErase;
    this.people = manager.getRepository(PersonSchema);
    this.reads = new PoolQueries(manager, preparedLookups);
    this.knownClubs = options.inTransaction === true ? new Map() : null;
  }

  search(query: PersonQuery, limit: number): Promise<Person[]> {
    return withDatabaseErrors(() => this.select(this.condition(query, query.after), limit));
  }

  async *stream(query: PersonQuery): AsyncIterable<Person> {
    yield* this.batches(
      (after) => this.condition(query, after),
      (condition, size) => this.select(condition, size),
      query.after,
    );
  }

  searchRendered(query: PersonQuery, limit: number): Promise<RenderedPerson[]> {
    const lookup = query.lookup === true;
    const part = this.sharing?.pagePart;
    const firstPart = lookup ? undefined : part?.();
    if (part === undefined || firstPart === undefined || limit <= firstPart) {
      return withDatabaseErrors(() =>
        this.selectRendered(this.condition(query, query.after), query, limit, lookup),
      );
    }
    return withDatabaseErrors(async () => {
      const found: RenderedPerson[] = [];
      let after = query.after;
      let asked = firstPart;
      for (;;) {
        const rows = await this.selectRendered(this.condition(query, after), query, asked, false);
        found.push(...rows);
        if (rows.length < asked || found.length >= limit) return found;
        after = rows[rows.length - 1].id;
        asked = Math.min(part(), limit - found.length);
      }
    });
  }

  async *streamRendered(query: PersonQuery): AsyncIterable<RenderedPerson> {
    yield* this.batches(
      (after) => this.condition(query, after),
      (condition, size) => this.selectRendered(condition, query, size, query.lookup === true),
      query.after,
    );
  }

  async *streamAll(): AsyncIterable<Person> {
    yield* this.batches(
      (after) =>
        after === undefined
          ? { sql: 'p.erased_at IS NULL', params: [] }
          : { sql: 'p.erased_at IS NULL AND p.id > $1', params: [after] },
      (condition, size) => this.select(condition, size),
    );
  }

  findById(id: number): Promise<Person | null> {
    return withDatabaseErrors(
      async () => (await this.select({ sql: 'p.id = $1', params: [id] }, 1))[0] ?? null,
    );
  }

  findFieldsById(id: number): Promise<PersonFields | null> {
    return withDatabaseErrors(async () => {
      const rows: PersonFieldsRow[] = await this.manager.query(
        `SELECT ${PERSON_FIELD_COLUMNS} FROM people p WHERE p.id = $1`,
        [id],
      );
      return rows.length > 0 ? toPersonFields(rows[0]) : null;
    });
  }

  findByIdForUpdate(id: number): Promise<Person | null> {
    return withDatabaseErrors(async () => {
      const rows: PersonSelectRow[] = await this.manager.query(
        `SELECT ${PERSON_COLUMNS} FROM people p WHERE p.id = $1 FOR UPDATE OF p`,
        [id],
      );
      return rows.length > 0 ? toPerson(rows[0]) : null;
    });
  }

  update(id: number, changes: PersonChanges): Promise<void> {
    return withDatabaseErrors(async () => {
      if ((await this.replaceFields([{ id, fields: changes }])) === 0) {
        throw new NotFound(`person ${id} not found`);
      }
    });
  }

  insertMany(people: NewPerson[]): Promise<number[]> {
    return withDatabaseErrors(async () => {
      if (people.length === 0) return [];
      const clubIds = await this.clubIds(people.flatMap((p) => p.memberships.map((m) => m.club)));
      const ids: number[] = [];
      for (let start = 0; start < people.length; start += INSERT_CHUNK_SIZE) {
        ids.push(...(await this.insertChunk(people.slice(start, start + INSERT_CHUNK_SIZE), clubIds)));
      }
      return ids;
    });
  }

  findMany(ids: number[]): Promise<Person[]> {
    return withDatabaseErrors(async () => {
      if (ids.length === 0) return [];
      const rows: PersonSelectRow[] = await this.manager.query(
        `SELECT ${PERSON_COLUMNS} FROM people p WHERE p.id = ANY($1::int[]) ORDER BY p.id`,
        [ids],
      );
      return rows.map(toPerson);
    });
  }

  findIdentities(keys: {
    ids: number[];
    memberNumbers: string[];
    chatIds: string[];
  }): Promise<PersonIdentity[]> {
    // A first import names nobody: no round trip for each of its batches.
    if (keys.ids.length === 0 && keys.memberNumbers.length === 0 && keys.chatIds.length === 0) {
      return Promise.resolve([]);
    }
    return this.identities(
      `p.id = ANY($1::int[]) OR p.member_number = ANY($2::text[])
        OR (p.chat_id = ANY($3::text[]) AND p.role = 'member')`,
      [keys.ids, keys.memberNumbers, keys.chatIds],
    );
  }

  lockIdentities(ids: number[]): Promise<PersonIdentity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    // Sorted below FOR UPDATE: rows are locked in the order they come out, by id.
    return this.identities('p.id = ANY($1::int[])', [ids], 'FOR UPDATE OF p');
  }

  membersOtherThan(ids: number[]): Promise<PersonIdentity[]> {
    return this.identities(`${visiblePersonSql('p')} AND NOT (p.id = ANY($1::int[]))`, [ids]);
  }

  findLookalikes(keys: { emails: string[]; names: { first: string; last: string }[] }): Promise<Lookalike[]> {
    return withDatabaseErrors(async () => {
      if (keys.emails.length === 0 && keys.names.length === 0) return [];
      // Compared with the folded copies the writers store (SPEC §1's case folding, done in
      // JavaScript): emails through their index, names joined to the wanted pairs.
      const rows: {
        id: number;
        first_name: string;
        last_name: string;
        first_name_folded: string;
        last_name_folded: string;
        emails: string[];
      }[] = await this.manager.query(
        `SELECT p.id, p.first_name, p.last_name, p.first_name_folded, p.last_name_folded,
                ARRAY(SELECT c.value_folded FROM contacts c
                       WHERE c.person_id = p.id AND c.kind = 'email' AND c.value_folded = ANY($1::text[])
                       ORDER BY c.id) AS emails
           FROM people p
          WHERE ${visiblePersonSql('p')}
            AND (p.id IN (SELECT c.person_id FROM contacts c
                           WHERE c.kind = 'email' AND c.value_folded = ANY($1::text[]))
                 OR (p.first_name_folded, p.last_name_folded) IN
                    (SELECT v.first, v.last FROM unnest($2::text[], $3::text[]) AS v(first, last)))
          ORDER BY p.id`,
        [keys.emails, keys.names.map((n) => n.first), keys.names.map((n) => n.last)],
      );
      return rows.map((row) => ({
        id: row.id,
        firstName: row.first_name,
        lastName: row.last_name,
        foldedFirstName: row.first_name_folded,
        foldedLastName: row.last_name_folded,
        foldedEmails: row.emails,
      }));
    });
  }

  membersWhoLeftBefore(date: string): Promise<PersonIdentity[]> {
    return this.identities(
      `${visiblePersonSql('p')} AND p.username IS NULL
        AND EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = p.id)
        AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = p.id AND ${lastsUntilSql('m', '$1::date')})`,
      [date],
    );
  }

  standingsOf(ids: number[], today: string, grace: Grace): Promise<Map<number, Standing>> {
    return withDatabaseErrors(async () => {
      const rows: { id: number; standing: Standing }[] = await this.manager.query(
        `SELECT p.id, ${personStandingSql('p', '$2::date', grace)} AS standing FROM people p WHERE p.id = ANY($1::int[])`,
        [ids, today],
      );
      return new Map(rows.map((row) => [row.id, row.standing]));
    });
  }

  releaseIdentifiers(chatIdsOf: number[], memberNumbersOf: number[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (chatIdsOf.length > 0) {
        await this.manager.query('UPDATE people SET chat_id = NULL WHERE id = ANY($1::int[])', [chatIdsOf]);
      }
      if (memberNumbersOf.length > 0) {
        await this.manager.query('UPDATE people SET member_number = NULL WHERE id = ANY($1::int[])', [
          memberNumbersOf,
        ]);
      }
    });
  }

  // A batch of people, one statement a table: SQL.
  replaceMany(replacements: PersonReplacement[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (replacements.length === 0) return;
      await this.replaceFields(replacements);
      const removedContacts = replacements.flatMap((r) => r.removeContacts);
      if (removedContacts.length > 0) {
        await this.manager.query('DELETE FROM contacts WHERE id = ANY($1::int[])', [removedContacts]);
      }
      const changedContacts = replacements.flatMap((r) => r.changeContacts);
      if (changedContacts.length > 0) {
        await this.manager.query(
          `UPDATE contacts c SET value = v.value,
                  value_folded = CASE WHEN c.kind = 'email' THEN v.folded END
             FROM unnest($1::int[], $2::text[], $3::text[]) AS v(id, value, folded)
            WHERE c.id = v.id`,
          [
            changedContacts.map((c) => c.id),
            changedContacts.map((c) => c.value),
            changedContacts.map((c) => foldCase(c.value)),
          ],
        );
      }
      const removedMemberships = replacements.flatMap((r) => r.removeMemberships);
      if (removedMemberships.length > 0) {
        await this.manager.query('DELETE FROM memberships WHERE id = ANY($1::int[])', [removedMemberships]);
      }
      await this.insertContacts(
        replacements.flatMap((r) => r.addContacts.map((c) => ({ personId: r.id, ...c }))),
      );
      const memberships = replacements.flatMap((r) =>
        r.addMemberships.map((m) => ({ personId: r.id, ...m })),
      );
      if (memberships.length > 0) {
        await this.insertMemberships(memberships, await this.clubIds(memberships.map((m) => m.club)));
      }
    });
  }

  erase(ids: number[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (ids.length === 0) return;
      await this.manager.query('DELETE FROM contacts WHERE person_id = ANY($1::int[])', [ids]);
      await this.manager.query(
        `UPDATE people SET first_name = $2, last_name = $2, first_name_folded = $3, last_name_folded = $3,
                chat_id = NULL, planner_id = NULL, member_number = NULL, erased_at = now(),
                version = version + 1, updated_at = now()
          WHERE id = ANY($1::int[])`,
        [ids, ERASED_NAME, foldCase(ERASED_NAME)],
      );
      // The periods stay for the statistics, but an erased person has no more changes to tell:
      // the calendar must not announce their memberships starting, ending or lapsing (and its
      // index of lapses to deal with must not keep them for ever).
      await this.manager.query(
        `UPDATE memberships SET start_announced = true, end_announced = true,
                lapse_announced = coalesce(lapse_announced, end_date)
          WHERE person_id = ANY($1::int[])`,
        [ids],
      );
      // Counted with the erasure, so that the purge that rewrites what held their values is
      // caught up by the retention job if the one after the commit does not finish.
      await countErasure(this.manager);
      this.onErase?.();
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

  /**
   * Sets the fields each replacement carries, keeps the others, and counts a new version for each
   * person: one statement for them all. Answers how many people there were to change.
   */
  private async replaceFields(replacements: Pick<PersonReplacement, 'id' | 'fields'>[]): Promise<number> {
    // Fields left alone come as null with a flag saying so: a set field may become null too.
    const has = (key: keyof PersonReplacement['fields']) =>
      replacements.map((r) => r.fields[key] !== undefined);
    const value = (key: keyof PersonReplacement['fields']) => replacements.map((r) => r.fields[key] ?? null);
    // An UPDATE answers its rows and how many it changed.
    const [, changed]: [unknown[], number] = await this.manager.query(
      `UPDATE people p SET${NAMES_SET},
          chat_id = CASE WHEN v.has_chat THEN v.chat_id ELSE p.chat_id END,
          planner_id = CASE WHEN v.has_planner THEN v.planner_id ELSE p.planner_id END,
          member_number = CASE WHEN v.has_number THEN v.member_number ELSE p.member_number END,
          version = p.version + 1,
          updated_at = now()
         FROM unnest($1::int[], $2::bool[], $3::text[], $4::text[], $5::bool[], $6::text[], $7::text[],
                     $8::bool[], $9::text[], $10::bool[], $11::text[], $12::bool[], $13::text[])
           AS v(id, has_first, first_name, first_folded, has_last, last_name, last_folded,
                has_chat, chat_id, has_planner, planner_id, has_number, member_number)
        WHERE p.id = v.id`,
      [
        replacements.map((r) => r.id),
        ...nameColumns(replacements.map((r) => r.fields)),
        has('chatId'),
        value('chatId'),
        has('plannerId'),
        value('plannerId'),
        has('memberNumber'),
        value('memberNumber'),
      ],
    );
    return changed;
  }

  /** Every person, admins included. */
  count(): Promise<number> {
    return withDatabaseErrors(() => this.people.count());
  }

  private condition(query: PersonQuery, after: number | undefined): SqlCondition {
    return personFilterSql(query.filter, {
      today: query.today,
      grace: query.grace,
      after,
      visibleOnly: true,
    });
  }

  private async select(condition: SqlCondition, limit: number): Promise<Person[]> {
    const rows: PersonSelectRow[] = await this.manager.query(
      `SELECT ${PERSON_COLUMNS} FROM people p WHERE ${condition.sql} ORDER BY p.id LIMIT $${condition.params.length + 1}`,
      [...condition.params, limit],
    );
    return rows.map(toPerson);
  }

  /** People as JSON text, rendered by the database (the read model, see person-json-sql.ts). */
  private selectRendered(
    condition: SqlCondition,
    { today, grace = NO_GRACE }: PersonQuery,
    limit: number,
    lookup: boolean,
  ): Promise<RenderedPerson[]> {
    // A lookup's plan is the same whatever the value (an index probe): prepared once. Name and
    // page searches are planned for their values, as a pattern's selectivity varies widely.
    return this.reads.query(renderedSelect(condition, grace), [...condition.params, today, limit], lookup);
  }

  private async *batches<T extends { id: number }>(
    conditionAfter: (after: number | undefined) => SqlCondition,
    select: (condition: SqlCondition, size: number) => Promise<T[]>,
    start?: number,
  ): AsyncIterable<T> {
    let after = start;
    for (let first = true; ; first = false) {
      // The first batch runs at once, like a page: it is all that a lookup or a short list needs.
      // Only long streams read more, and those batches take turns.
      const size = first ? STREAM_BATCH_SIZE : (this.sharing?.laterBatchSize ?? STREAM_BATCH_SIZE);
      const read = () => select(conditionAfter(after), size);
      const lane = first ? undefined : this.sharing?.lane;
      const batch = await withDatabaseErrors(() => lane?.run(read) ?? read());
      yield* batch;
      if (batch.length < size) return;
      after = batch[batch.length - 1].id;
    }
  }

  /** Ids of the named clubs (and maybe of others), creating the missing ones. */
  private async clubIds(names: string[]): Promise<Map<string, number>> {
    const known = this.knownClubs ?? new Map<string, number>();
    const unique = [...new Set(names)].filter((name) => !known.has(name));
    if (unique.length === 0) return known;
    await this.manager.query(
      'INSERT INTO clubs (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING',
      [unique],
    );
    const rows: { id: number; name: string }[] = await this.manager.query(
      'SELECT id, name FROM clubs WHERE name = ANY($1::text[])',
      [unique],
    );
    for (const row of rows) known.set(row.name, row.id);
    return known;
  }

  private async identities(condition: string, params: unknown[], lock = ''): Promise<PersonIdentity[]> {
    return withDatabaseErrors(async () => {
      const rows: {
        id: number;
        role: Role;
        erased: boolean;
        chat_id: string | null;
        member_number: string | null;
        has_account: boolean;
        first_name: string;
        last_name: string;
      }[] = await this.manager.query(
        `SELECT p.id, p.role, p.erased_at IS NOT NULL AS erased, p.chat_id, p.member_number,
                p.username IS NOT NULL AS has_account, p.first_name, p.last_name
           FROM people p WHERE ${condition} ORDER BY p.id ${lock}`,
        params,
      );
      return rows.map((row) => ({
        id: row.id,
        role: row.role,
        erased: row.erased,
        chatId: row.chat_id,
        memberNumber: row.member_number,
        hasAccount: row.has_account,
        firstName: row.first_name,
        lastName: row.last_name,
      }));
    });
  }

  private async insertContacts(contacts: (NewContact & { personId: number })[]): Promise<void> {
    if (contacts.length === 0) return;
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

  private async insertMemberships(
    memberships: (NewMembership & { personId: number })[],
    clubIds: Map<string, number>,
  ): Promise<void> {
    if (memberships.length === 0) return;
    await this.manager.query(
      `INSERT INTO memberships (${MEMBERSHIP_INSERT_COLUMNS})
       SELECT m.person_id, m.club_id, m.kind, m.start_date, m.end_date, ${LONG_PAST_MARKS}
         FROM unnest($1::int[], $2::int[], $3::text[], $4::date[], $5::date[])
                AS m(person_id, club_id, kind, start_date, end_date),
              (SELECT ${LONG_PAST} AS long_past) AS t`,
      [
        memberships.map((m) => m.personId),
        memberships.map((m) => clubIds.get(m.club)),
        memberships.map((m) => m.kind),
        memberships.map((m) => m.startDate),
        memberships.map((m) => m.endDate),
      ],
    );
  }

  async beginBulkInsert(count: number): Promise<void> {
    if (this.knownClubs === null || count < BULK_INSERT_MIN) return;
    await withDatabaseErrors(async () => {
      const [{ people }]: { people: number }[] = await this.manager.query(
        'SELECT count(*)::int AS people FROM people',
      );
      if (count < BULK_INSERT_FACTOR * people) return;
      // The non-unique indexes of the three tables: the unique ones check what is inserted.
      const indexes: { name: string; definition: string }[] = await this.manager.query(
        `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
           FROM pg_index i
          WHERE i.indrelid IN ('people'::regclass, 'contacts'::regclass, 'memberships'::regclass)
            AND NOT i.indisunique AND i.indisvalid`,
      );
      for (const { name } of indexes) await this.manager.query(`DROP INDEX ${name}`);
      this.setAside = indexes;
      // Checked row by row, a contact's or membership's key costs a locking read of its person
      // and club: most of the insert's time (100,000 people: PGlite 15.8 → 11.2 s, PostgreSQL
      // 9.7 → 6.7 s). Added again at the end, each is checked once over the whole table, in the
      // same transaction: rows it would refuse fail the import as they would have failed the
      // insert. No person is deleted meanwhile (erasures come first), so no cascade is missed.
      const keys: { table: string; name: string; definition: string }[] = await this.manager.query(
        `SELECT conrelid::regclass::text AS table, quote_ident(conname) AS name,
                pg_get_constraintdef(oid) AS definition
           FROM pg_constraint
          WHERE contype = 'f' AND conrelid IN ('contacts'::regclass, 'memberships'::regclass)`,
      );
      for (const { table, name } of keys)
        await this.manager.query(`ALTER TABLE ${table} DROP CONSTRAINT ${name}`);
      this.keysSetAside = keys;
    });
  }

  async endBulkInsert(): Promise<void> {
    const indexes = this.setAside;
    const keys = this.keysSetAside;
    this.setAside = [];
    this.keysSetAside = [];
    await withDatabaseErrors(async () => {
      for (const { definition } of indexes) await this.manager.query(definition);
      for (const { table, name, definition } of keys) {
        await this.manager.query(`ALTER TABLE ${table} ADD CONSTRAINT ${name} ${definition}`);
      }
    });
  }

  /**
   * People with their contacts and memberships in one statement: the database works through a
   * whole batch without waiting for node between tables (node is reading the next batch
   * meanwhile, and would answer late). Ids are drawn in the statement; the k-th smallest goes to
   * the k-th person, so that people keep the order they came in, and contacts and memberships,
   * which name their person by position, are written in the order given (their ids follow it).
   */
  private async insertChunk(people: NewPerson[], clubIds: Map<string, number>): Promise<number[]> {
    const contacts = people.flatMap((p, i) => p.contacts.map((c) => ({ position: i + 1, ...c })));
    const memberships = people.flatMap((p, i) => p.memberships.map((m) => ({ position: i + 1, ...m })));
    const rows: { id: number }[] = await this.manager.query(
      `WITH drawn AS (
         SELECT array_agg(s.id ORDER BY s.id) AS ids, ${LONG_PAST} AS long_past
           FROM (SELECT nextval(pg_get_serial_sequence('people', 'id'))::int AS id
                   FROM generate_series(1, $1::int)) AS s
       ), person AS (
         INSERT INTO people (id, role, first_name, last_name, chat_id, planner_id, member_number,
                             first_name_folded, last_name_folded)
         SELECT d.ids[v.position], v.role, v.first_name, v.last_name, v.chat_id, v.planner_id,
                v.member_number, v.first_name_folded, v.last_name_folded
           FROM drawn d,
                unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                       $8::text[], $9::text[]) WITH ORDINALITY
                  AS v(role, first_name, last_name, chat_id, planner_id, member_number,
                       first_name_folded, last_name_folded, position)
       ), contact AS (
         INSERT INTO contacts (person_id, kind, value, label, value_folded)
         SELECT d.ids[c.position], c.kind, c.value, c.label, c.value_folded
           FROM drawn d,
                unnest($10::int[], $11::text[], $12::text[], $13::text[], $14::text[])
                  AS c(position, kind, value, label, value_folded)
       ), membership AS (
         INSERT INTO memberships (${MEMBERSHIP_INSERT_COLUMNS})
         SELECT d.ids[m.position], m.club_id, m.kind, m.start_date, m.end_date, ${LONG_PAST_MARKS}
           FROM drawn d,
                unnest($15::int[], $16::int[], $17::text[], $18::date[], $19::date[])
                  AS m(position, club_id, kind, start_date, end_date)
       )
       SELECT unnest(d.ids) AS id FROM drawn d`,
      [
        people.length,
        people.map((p) => p.role),
        people.map((p) => p.firstName),
        people.map((p) => p.lastName),
        people.map((p) => p.chatId),
        people.map((p) => p.plannerId),
        people.map((p) => p.memberNumber ?? null),
        people.map((p) => foldCase(p.firstName)),
        people.map((p) => foldCase(p.lastName)),
        contacts.map((c) => c.position),
        contacts.map((c) => c.kind),
        contacts.map((c) => c.value),
        contacts.map((c) => c.label),
        contacts.map(foldedValue),
        memberships.map((m) => m.position),
        memberships.map((m) => clubIds.get(m.club)),
        memberships.map((m) => m.kind),
        memberships.map((m) => m.startDate),
        memberships.map((m) => m.endDate),
      ],
    );
    return rows.map((row) => row.id);
  }
}
