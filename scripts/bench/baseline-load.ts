import { readFile } from 'node:fs/promises';
import { Client } from 'pg';
import { foldCase } from '../../src/domain/text';
import { LOAD_REFERENCES, SEARCH_INDEXES } from './baseline-schema';
import type { ImportRecord } from './generate-directory';

const BATCH = 5000;

/** What the load needs of a connection: node-postgres's Client, or PGlite in the same process. */
export interface SqlClient {
  query<T>(text: string, values?: unknown[]): Promise<{ rows: T[] }>;
}

export interface LoadOptions {
  /** Drop the foreign keys of contacts and memberships too, and add them again at the end. */
  keysAside?: boolean;
}

/** Loads the file through a connection of PostgreSQL's; answers the load's time. */
export async function baselineLoad(
  connection: { connectionString: string; schema: string },
  file: string,
  options: LoadOptions = {},
) {
  const client = new Client({
    connectionString: connection.connectionString,
    options: `-c search_path=${connection.schema},public`,
  });
  await client.connect();
  try {
    return await loadInto(client, file, options);
  } finally {
    await client.end();
  }
}

/**
 * Loads the import file through `client`, whose search path names the baseline's schema, the way
 * a careful bulk load does: parse, then one transaction that drops the secondary indexes, inserts
 * with multi-row INSERTs fed by unnest() over column arrays (ids assigned here, so that contacts
 * and memberships need no round trip), and builds the indexes again at the end. This is the
 * yardstick for the service's import time, as the performance issue defines it. With `keysAside`
 * it also drops the foreign keys of contacts and memberships and adds them again at the end, as
 * the service's first import does: the stricter yardstick, shown beside the first.
 */
export async function loadInto(client: SqlClient, file: string, options: LoadOptions = {}) {
  const keys = options.keysAside ? LOAD_REFERENCES : [];
  const started = performance.now();
  const records = JSON.parse(await readFile(file, 'utf8')) as ImportRecord[];
  try {
    await client.query('BEGIN');
    for (const { name } of SEARCH_INDEXES) await client.query(`DROP INDEX ${name}`);
    for (const { table, name } of keys) await client.query(`ALTER TABLE ${table} DROP CONSTRAINT ${name}`);
    const clubNames = [...new Set(records.flatMap((r) => r.memberships.map((m) => m.club)))];
    const clubs = await client.query<{ id: number; name: string }>(
      'INSERT INTO clubs (name) SELECT unnest($1::text[]) RETURNING id, name',
      [clubNames],
    );
    const clubIds = new Map(clubs.rows.map((row) => [row.name, row.id]));
    const first = await client.query<{ next: number }>('SELECT coalesce(max(id), 0) + 1 AS next FROM people');
    let nextId = first.rows[0].next;
    for (let offset = 0; offset < records.length; offset += BATCH) {
      const batch = records.slice(offset, offset + BATCH);
      // The service's ids where the file has them (the synced file is its export, which leaves
      // admins out): the same pages then hold the same people on both servers.
      const ids = batch.map((r) => (r as ImportRecord & { id?: number }).id ?? nextId++);
      nextId = Math.max(nextId, ...ids.map((id) => id + 1));
      await client.query(
        `INSERT INTO people (id, role, first_name, last_name, chat_id, planner_id, first_name_folded, last_name_folded)
         SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`,
        [
          ids,
          batch.map((r) => r.role),
          batch.map((r) => r.first_name),
          batch.map((r) => r.last_name),
          batch.map((r) => r.chat_id || null),
          batch.map((r) => r.planner_id || null),
          batch.map((r) => foldCase(r.first_name)),
          batch.map((r) => foldCase(r.last_name)),
        ],
      );
      const contacts = batch.flatMap((r, i) => r.contacts.map((c) => ({ ...c, personId: ids[i] })));
      await client.query(
        `INSERT INTO contacts (person_id, kind, value, label, value_folded)
         SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[])`,
        [
          contacts.map((c) => c.personId),
          contacts.map((c) => c.kind),
          contacts.map((c) => c.value),
          contacts.map((c) => c.label),
          contacts.map((c) => (c.kind === 'email' ? foldCase(c.value) : null)),
        ],
      );
      const memberships = batch.flatMap((r, i) => r.memberships.map((m) => ({ ...m, personId: ids[i] })));
      await client.query(
        `INSERT INTO memberships (person_id, club_id, kind, start_date, end_date)
         SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::date[], $5::date[])`,
        [
          memberships.map((m) => m.personId),
          memberships.map((m) => clubIds.get(m.club)),
          memberships.map((m) => m.kind),
          memberships.map((m) => m.start_date),
          memberships.map((m) => m.end_date),
        ],
      );
    }
    await client.query(`SELECT setval(pg_get_serial_sequence('people', 'id'), $1)`, [nextId - 1]);
    for (const { create } of SEARCH_INDEXES) await client.query(create);
    for (const { table, name, definition } of keys) {
      await client.query(`ALTER TABLE ${table} ADD CONSTRAINT ${name} ${definition}`);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return { seconds: (performance.now() - started) / 1000, people: records.length };
}
