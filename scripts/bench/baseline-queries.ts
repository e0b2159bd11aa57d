import { foldCase } from '../../src/domain/text';

/**
 * The SQL of the baseline server: one statement per request that returns each person already
 * rendered as JSON text (the service's shape, SPEC §1), so node only concatenates strings.
 */

export interface BaselineFilter {
  email?: string;
  firstName?: string;
  lastName?: string;
  chatId?: string;
  active?: 'yes' | 'no';
  hasChat?: boolean;
  hasPlanner?: boolean;
}

// $1 is always today's date: it decides `current` and the active filter. row_to_json writes
// compact JSON (json_build_object and json_agg put spaces and newlines in), so both servers send
// the same bytes; children are joined with string_agg for the same reason.
const PERSON_JSON = `(SELECT row_to_json(r)::text FROM (SELECT
  p.id, p.first_name, p.last_name, p.chat_id, p.planner_id, p.member_number,
  coalesce((
    SELECT ('[' || string_agg(row_to_json(c)::text, ','
                 ORDER BY array_position(ARRAY['email', 'phone', 'address'], c.kind), c.id) || ']')::json
    FROM (SELECT c.id, c.kind, c.value, c.label FROM contacts c WHERE c.person_id = p.id) c), '[]'::json) AS contacts,
  coalesce((
    SELECT ('[' || string_agg(row_to_json(m)::text, ',' ORDER BY m.start_date, m.id) || ']')::json
    FROM (SELECT m.id, (SELECT row_to_json(k) FROM (SELECT cl.id, cl.name) k) AS club, m.kind,
                 m.start_date, m.end_date,
                 m.start_date <= $1::date AND (m.end_date IS NULL OR m.end_date >= $1::date) AS current
          FROM memberships m JOIN clubs cl ON cl.id = m.club_id WHERE m.person_id = p.id) m), '[]'::json) AS memberships
) r)`;

/**
 * Whether the person has a current membership. With a page start, the redundant bound on
 * m.person_id lets a merge join seek into the memberships index instead of reading it from the
 * first person: without it a page deep in the directory costs a scan of most memberships.
 */
function current(afterParam: string | null): string {
  const bound = afterParam === null ? '' : ` AND m.person_id > ${afterParam}`;
  return `EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = p.id${bound}
  AND m.start_date <= $1::date AND (m.end_date IS NULL OR m.end_date >= $1::date))`;
}

/** Case-insensitive substring: a LIKE on the folded column, with % _ and \ escaped. */
function likePattern(value: string): string {
  return `%${foldCase(value).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `SELECT p.id, <json> AS body FROM people p WHERE ... ORDER BY p.id [LIMIT]` with its values. */
export function searchSql(
  today: string,
  filter: BaselineFilter,
  page: { after?: number; limit?: number },
): { text: string; values: unknown[] } {
  const values: unknown[] = [today];
  const where = [`p.role = 'member'`];
  const bind = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.email !== undefined) {
    // ANY(ARRAY(subquery)) makes the planner probe people by primary key for the few ids the
    // email index yields; as a join it guesses hundreds of matches (a partial expression index
    // has no statistics) and scans all people.
    where.push(`p.id = ANY (ARRAY(SELECT c.person_id FROM contacts c
      WHERE c.kind = 'email' AND c.value_folded = ${bind(foldCase(filter.email))}))`);
  }
  if (filter.firstName !== undefined)
    where.push(`p.first_name_folded LIKE ${bind(likePattern(filter.firstName))}`);
  if (filter.lastName !== undefined)
    where.push(`p.last_name_folded LIKE ${bind(likePattern(filter.lastName))}`);
  if (filter.chatId !== undefined) where.push(`p.chat_id = ${bind(filter.chatId)}`);
  const afterParam = page.after === undefined ? null : bind(page.after);
  if (afterParam !== null) where.push(`p.id > ${afterParam}`);
  if (filter.active === 'yes') where.push(current(afterParam));
  if (filter.active === 'no') where.push(`NOT ${current(afterParam)}`);
  if (filter.hasChat !== undefined) where.push(`p.chat_id IS ${filter.hasChat ? 'NOT ' : ''}NULL`);
  if (filter.hasPlanner !== undefined) where.push(`p.planner_id IS ${filter.hasPlanner ? 'NOT ' : ''}NULL`);
  const limit = page.limit === undefined ? '' : ` LIMIT ${bind(page.limit)}`;
  return {
    text: `SELECT p.id, ${PERSON_JSON} AS body FROM people p WHERE ${where.join(' AND ')} ORDER BY p.id${limit}`,
    values,
  };
}

/**
 * The update, its audit entries and the new person in one statement: lock the row, update it,
 * log each changed field with old and new value, and render the result.
 * $1 today, $2 id, $3 first_name, $4 last_name, $5 chat_id, $6 whether chat_id is given,
 * $7 actor account, $8 actor key, $9 and $10 the folded first and last name.
 */
export const UPDATE_SQL = `
WITH old AS (
  SELECT id, first_name, last_name, chat_id FROM people WHERE id = $2 AND role = 'member' FOR UPDATE
), changed AS (
  UPDATE people p SET
    first_name = coalesce($3, old.first_name),
    last_name = coalesce($4, old.last_name),
    first_name_folded = coalesce($9, p.first_name_folded),
    last_name_folded = coalesce($10, p.last_name_folded),
    chat_id = CASE WHEN $6::boolean THEN $5 ELSE old.chat_id END,
    version = p.version + 1,
    updated_at = now()
  FROM old WHERE p.id = old.id
  RETURNING p.*
), audit AS (
  INSERT INTO audit_entries (actor_account_id, actor_key_id, action, subject_type, subject_id, field, old_value, new_value)
  SELECT $7, $8, 'person.update', 'person', old.id, f.field, f.old_value, f.new_value
  FROM old, changed, LATERAL (VALUES
    ('first_name', old.first_name, changed.first_name),
    ('last_name', old.last_name, changed.last_name),
    ('chat_id', old.chat_id, changed.chat_id)) AS f(field, old_value, new_value)
  WHERE f.old_value IS DISTINCT FROM f.new_value
)
SELECT ${PERSON_JSON} AS body FROM changed p`;

/** One indexed lookup: the key by its token hash, usable now, and its account's state. */
export const TOKEN_SQL = `
SELECT k.id, k.person_id, k.permissions
FROM api_keys k JOIN people a ON a.id = k.person_id
WHERE k.token_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
  AND NOT a.disabled`;

export const ACCOUNT_SQL = `SELECT id, password_hash, permissions FROM people
WHERE username = $1 AND NOT disabled`;

export const INSERT_KEY_SQL = `
INSERT INTO api_keys (person_id, prefix, token_hash, permissions) VALUES ($1, $2, $3, $4)
RETURNING id, name, permissions, created_at, expires_at, last_used_at`;
