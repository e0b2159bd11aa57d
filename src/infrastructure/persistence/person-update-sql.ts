import type { EntityManager } from 'typeorm';
import type { PersonUpdate } from '../../application/ports/unit-of-work';
import { type Person, visiblePersonSql } from '../../domain/person';
import { foldCase } from '../../domain/text';
import { GroupCommit } from './group-commit';
import { PERSON_COLUMNS, type PersonSelectRow, toPerson } from './person-select';
import { CHANGE_LOG_LOCK_KEY, fieldsText, insertChangesSql } from './sql-change-log';

/** Updates written by one statement at most: what a statement's arrays and answer are sized for. */
const MAX_BATCH = 64;

/**
 * The SET of the names of `people p` from `v`, each with its folded copy, which name searches
 * match (SPEC §1): set where `v` has it, kept where not. `v`'s columns are nameColumns' six, in
 * its order: has_first, first_name, first_folded, has_last, last_name, last_folded.
 */
export const NAMES_SET = `
    first_name = CASE WHEN v.has_first THEN v.first_name ELSE p.first_name END,
    first_name_folded = CASE WHEN v.has_first THEN v.first_folded ELSE p.first_name_folded END,
    last_name = CASE WHEN v.has_last THEN v.last_name ELSE p.last_name END,
    last_name_folded = CASE WHEN v.has_last THEN v.last_folded ELSE p.last_name_folded END`;

/** The parameters NAMES_SET reads, one array each, an element per change; absent names are kept. */
export function nameColumns(changes: { firstName?: string; lastName?: string }[]): unknown[] {
  const columns = (name: (change: (typeof changes)[number]) => string | undefined) => [
    changes.map((change) => name(change) !== undefined),
    changes.map((change) => name(change) ?? null),
    changes.map((change) => {
      const value = name(change);
      return value === undefined ? null : foldCase(value);
    }),
  ];
  return [...columns((change) => change.firstName), ...columns((change) => change.lastName)];
}

/**
 * People's updates, their audit entries and their changes in one statement, sent on its own (so
 * committed as it ends): each update is written only if its person is still visible and at the
 * version it was decided on (UPDATE ... WHERE version = ..., which PostgreSQL re-checks against
 * a row changed concurrently).
 *
 * Parts of one statement see the same snapshot, so people are rendered from the rows the UPDATE
 * returns, not read again. The change log's lock (see SqlChangeLog) is taken for each row
 * the UPDATE returned, so only once those rows are locked (never the other way round, which
 * could deadlock with a transaction holding one of them), and `seq` is drawn for rows that came
 * out of the locking step, so only under the lock; the COMMIT that follows the statement in the
 * server releases it, with no round trip in between.
 *
 * Two updates of one person in one statement: the UPDATE changes the row once (PostgreSQL skips
 * a row the same statement already changed), so one of them returns no row and gets null.
 */
function updateSql(serialise: boolean): string {
  // Without the lock (only to show a test fail without it) the key is selected, unused.
  const lock = serialise ? 'pg_advisory_xact_lock($24::bigint)' : '$24::bigint';
  return `
WITH v AS (
  SELECT * FROM unnest($1::int[], $2::int[], $3::boolean[], $4::text[], $5::text[], $6::boolean[],
                       $7::text[], $8::text[], $9::boolean[], $10::text[]) WITH ORDINALITY
    AS v(id, version, has_first, first_name, first_folded, has_last, last_name, last_folded,
         has_chat, chat_id, n)
), changed AS (
  UPDATE people p SET${NAMES_SET},
    chat_id = CASE WHEN v.has_chat THEN v.chat_id ELSE p.chat_id END,
    version = p.version + 1,
    updated_at = now()
  FROM v
  WHERE p.id = v.id AND p.version = v.version AND ${visiblePersonSql('p')}
  RETURNING p.*, v.n
), audit AS (
  INSERT INTO audit_entries (actor_account_id, actor_key_id, action, subject_type, subject_id, field, old_value, new_value)
  SELECT a.account, a.key, a.action, a.subject_type, a.subject_id, a.field, a.old_value, a.new_value
  FROM changed c
  JOIN unnest($11::int[], $12::int[], $13::int[], $14::text[], $15::text[], $16::int[], $17::text[],
              $18::text[], $19::text[])
    AS a(n, account, key, action, subject_type, subject_id, field, old_value, new_value) ON a.n = c.n
), serialised AS MATERIALIZED (
  SELECT c.n, c.id, ${lock} AS locked FROM changed c
), logged AS (
  ${insertChangesSql(`(
    SELECT ch.type, s.id AS person_id, ch.fields, ch.by_key_id
    FROM serialised s
    JOIN unnest($20::int[], $21::text[], $22::text[], $23::int[]) AS ch(n, type, fields, by_key_id)
      ON ch.n = s.n
  ) c`)}
)
SELECT p.n, ${PERSON_COLUMNS} FROM changed p`;
}

const SERIALISED = updateSql(true);
const UNSERIALISED = updateSql(false);

/** Each update's person as updated, or null when they are not at that version (or are hidden). */
async function writeUpdates(
  manager: EntityManager,
  updates: PersonUpdate[],
  serialise: boolean,
): Promise<(Person | null)[]> {
  const column = <T>(read: (update: PersonUpdate) => T) => updates.map(read);
  // Audit entries and changes name their update by its place (from 1, as WITH ORDINALITY counts).
  const entries = updates.flatMap((update, i) => update.audit.map((entry) => ({ n: i + 1, entry })));
  const entry = <T>(read: (e: PersonUpdate['audit'][number]) => T) => entries.map((e) => read(e.entry));
  const rows: (PersonSelectRow & { n: string })[] = await manager.query(
    serialise ? SERIALISED : UNSERIALISED,
    [
      column((u) => u.id),
      column((u) => u.version),
      ...nameColumns(updates.map((u) => u.changes)),
      column((u) => u.changes.chatId !== undefined),
      column((u) => u.changes.chatId ?? null),
      entries.map((e) => e.n),
      entry((e) => e.actorAccountId),
      entry((e) => e.actorKeyId),
      entry((e) => e.action),
      entry((e) => e.subjectType),
      entry((e) => e.subjectId),
      entry((e) => e.field),
      entry((e) => e.oldValue),
      entry((e) => e.newValue),
      updates.map((_, i) => i + 1),
      column((u) => u.change.type),
      column((u) => fieldsText(u.change.fields)),
      column((u) => u.change.byKeyId),
      CHANGE_LOG_LOCK_KEY,
    ],
  );
  const people: (Person | null)[] = updates.map(() => null);
  for (const row of rows) people[Number(row.n) - 1] = toPerson(row);
  return people;
}

/**
 * Writes people's updates as they come, one statement at a time: the updates that arrive while a
 * statement runs go together in the next one (a group commit). Under load a PATCH then costs the
 * database a share of one statement, one COMMIT and one turn of the change log's lock, rather
 * than each of its own, and the lock, which one COMMIT at a time may hold, is taken once for
 * many. An update that fails a statement (a chat_id taken meanwhile) is not allowed to fail the
 * others with it: when a statement of several fails, each of them is written again on its own.
 */
export class PersonUpdateWriter {
  private readonly commits: GroupCommit<PersonUpdate, Person | null>;

  constructor(manager: EntityManager, serialise: boolean) {
    this.commits = new GroupCommit((updates) => writeUpdates(manager, updates, serialise), {
      maxBatch: MAX_BATCH,
      // By id: statements that lock several people lock them in one order.
      order: (a, b) => a.id - b.id,
    });
  }

  write(update: PersonUpdate): Promise<Person | null> {
    return this.commits.write(update);
  }
}
