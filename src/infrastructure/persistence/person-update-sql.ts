import type { EntityManager } from 'typeorm';
import type { PersonUpdate } from '../../application/ports/unit-of-work';
import type { Person } from '../../domain/person';
import { foldCase } from '../../domain/text';
import { CHANGE_LOG_LOCK_KEY } from './typeorm-change-log';
import { PERSON_COLUMNS, type PersonSelectRow, toPerson } from './person-select';

/**
 * One person's update, its audit entries and its change in one statement, sent on its own (so
 * committed at once): a PATCH costs one round trip where a transaction costs six, and holds no
 * lock while node is busy elsewhere.
 *
 * Parts of one statement see the same snapshot, so the person is rendered from the row the UPDATE
 * returns, not read again. The change log's lock (see TypeOrmChangeLog) is taken row by row from
 * what the UPDATE returned, so only once the person's row is locked (never the other way round,
 * which could deadlock with a transaction holding the row), and `seq` is drawn from the rows that
 * come out of the locking step, so only under the lock; the lock is released by the COMMIT that
 * follows the statement in the server, with no round trip in between.
 */
function updateSql(serialise: boolean): string {
  // Without the lock (only to show a test fail without it) the key is selected, unused.
  const lock = serialise ? 'pg_advisory_xact_lock($19::bigint)' : '$19::bigint';
  return `
WITH changed AS (
  UPDATE people p SET
    first_name = CASE WHEN $3::boolean THEN $4 ELSE p.first_name END,
    first_name_folded = CASE WHEN $3::boolean THEN $5 ELSE p.first_name_folded END,
    last_name = CASE WHEN $6::boolean THEN $7 ELSE p.last_name END,
    last_name_folded = CASE WHEN $6::boolean THEN $8 ELSE p.last_name_folded END,
    chat_id = CASE WHEN $9::boolean THEN $10 ELSE p.chat_id END,
    version = p.version + 1,
    updated_at = now()
  WHERE p.id = $1 AND p.version = $2 AND p.role <> 'admin' AND p.erased_at IS NULL
  RETURNING p.*
), audit AS (
  INSERT INTO audit_entries (actor_account_id, actor_key_id, action, subject_type, subject_id, field, old_value, new_value)
  SELECT a.* FROM changed,
    unnest($11::int[], $12::int[], $13::text[], $14::text[], $15::int[], $16::text[], $17::text[], $18::text[]) AS a
), serialised AS MATERIALIZED (
  SELECT c.id, ${lock} AS locked FROM changed c
), logged AS (
  INSERT INTO changes (seq, type, person_id, fields, by_key_id)
  SELECT nextval('changes_seq'), $20, s.id, $21::text[], $22::int FROM serialised s
)
SELECT ${PERSON_COLUMNS} FROM changed p`;
}

const SERIALISED = updateSql(true);
const UNSERIALISED = updateSql(false);

/** See PersonUpdate: the person as updated, or null when they are not at that version (or hidden). */
export async function updatePersonInOneStatement(
  manager: EntityManager,
  { id, version, changes, audit, change }: PersonUpdate,
  serialise: boolean,
): Promise<Person | null> {
  const { firstName, lastName, chatId } = changes;
  const rows: PersonSelectRow[] = await manager.query(serialise ? SERIALISED : UNSERIALISED, [
    id,
    version,
    firstName !== undefined,
    firstName ?? null,
    firstName === undefined ? null : foldCase(firstName),
    lastName !== undefined,
    lastName ?? null,
    lastName === undefined ? null : foldCase(lastName),
    chatId !== undefined,
    chatId ?? null,
    audit.map((e) => e.actorAccountId),
    audit.map((e) => e.actorKeyId),
    audit.map((e) => e.action),
    audit.map((e) => e.subjectType),
    audit.map((e) => e.subjectId),
    audit.map((e) => e.field),
    audit.map((e) => e.oldValue),
    audit.map((e) => e.newValue),
    CHANGE_LOG_LOCK_KEY,
    change.type,
    change.fields,
    change.byKeyId,
  ]);
  return rows.length > 0 ? toPerson(rows[0]) : null;
}
