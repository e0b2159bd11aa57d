import type { EntityManager } from 'typeorm';
import type { Change } from '../../application/ports/change-log';
import type { ChangeLog, NewChange } from '../../application/ports/change-log';
import { withDatabaseErrors } from './database-errors';

/**
 * Serialises the writers of the change log; any constant works, as long as every instance of the
 * service uses the same one (the migrations' lock is 72_707_369).
 */
export const CHANGE_LOG_LOCK_KEY = 72_707_370;

/**
 * Appends to the log the changes of `changes`, an SQL FROM item aliased `c` with the columns type,
 * person_id, fields (as fieldsText writes them) and by_key_id, drawing their seq in `order` when
 * given. Only under the lock above, taken in the same transaction.
 */
export function insertChangesSql(changes: string, order?: string): string {
  return `INSERT INTO changes (seq, type, person_id, fields, by_key_id)
  SELECT nextval('changes_seq'), c.type, c.person_id, string_to_array(c.fields, ','), c.by_key_id
    FROM ${changes}${order === undefined ? '' : ` ORDER BY ${order}`}`;
}

/** A change's fields as a parameter: comma-joined text, as unnest would flatten an array of arrays. */
export function fieldsText(fields: NewChange['fields']): string | null {
  return fields === null ? null : fields.join(',');
}

/**
 * The change log of one transaction: `record` only remembers the changes; `flush`, called by the
 * unit of work once the work is done and just before COMMIT, writes them.
 *
 * Why at the end: `seq` comes from a sequence, and two transactions can commit in the other order
 * than they drew their numbers. A reader asking for `seq > 41` after 42 committed but before 41
 * did would never see 41. So the numbers are drawn at the last moment, under a transaction-level
 * advisory lock that COMMIT releases: one transaction at a time draws and commits, and seq order
 * is the order in which changes become visible. The lock is held for one INSERT and the COMMIT;
 * transactions that record nothing never take it.
 */
export class SqlChangeLog implements ChangeLog {
  private pending: NewChange[] = [];

  /**
   * `atCommit`: the manager is a unit of work's transaction, which flushes. Without it (the
   * repositories outside any unit of work) each `record` is a transaction of its own.
   */
  constructor(
    private readonly manager: EntityManager,
    private readonly atCommit: boolean,
  ) {}

  async record(changes: NewChange[]): Promise<void> {
    const copies = changes.map((change) => ({
      ...change,
      fields: change.fields === null ? null : [...change.fields],
    }));
    if (!this.atCommit) {
      await withDatabaseErrors(() => this.manager.transaction((manager) => write(manager, copies, true)));
      return;
    }
    this.pending.push(...copies);
  }

  listAbout(personId: number): Promise<Change[]> {
    return withDatabaseErrors(async () => {
      const rows: {
        seq: string;
        at: Date;
        type: NewChange['type'];
        person_id: number;
        fields: NewChange['fields'];
        by_key_id: number | null;
      }[] = await this.manager.query(
        'SELECT seq, at, type, person_id, fields, by_key_id FROM changes WHERE person_id = $1 ORDER BY seq',
        [personId],
      );
      return rows.map((row) => ({
        seq: Number(row.seq),
        at: row.at,
        type: row.type,
        personId: row.person_id,
        fields: row.fields,
        byKeyId: row.by_key_id,
      }));
    });
  }

  /** Writes what was recorded, in order. `serialise: false` exists only to show the test fail without it. */
  flush(options: { serialise?: boolean } = {}): Promise<void> {
    const changes = this.pending;
    this.pending = [];
    if (changes.length === 0) return Promise.resolve();
    return withDatabaseErrors(() => write(this.manager, changes, options.serialise !== false));
  }
}

const INSERT_CHANGES = insertChangesSql(
  'unnest($1::text[], $2::int[], $3::text[], $4::int[]) WITH ORDINALITY AS c(type, person_id, fields, by_key_id, n)',
  'c.n',
);

async function write(manager: EntityManager, changes: NewChange[], serialise: boolean): Promise<void> {
  if (changes.length === 0) return;
  if (serialise) {
    await manager.query('SELECT pg_advisory_xact_lock($1)', [CHANGE_LOG_LOCK_KEY]);
  }
  await manager.query(INSERT_CHANGES, [
    changes.map((c) => c.type),
    changes.map((c) => c.personId),
    changes.map((c) => fieldsText(c.fields)),
    changes.map((c) => c.byKeyId),
  ]);
}
