import { type EntityManager, In, MoreThanOrEqual, type Repository } from 'typeorm';
import type { AuditLog, AuditQuery } from '../../application/ports/audit-log';
import { type AuditEntry, type NewAuditEntry, REDACTED } from '../../domain/audit-entry';
import { withDatabaseErrors } from './database-errors';
import { type AuditEntryRow, AuditEntrySchema } from './schemas/audit-entry-schema';

/** Entries about a person: the person's record and the account attached to it. */
const PERSON_SUBJECTS = ['person', 'account'];

function toAuditEntry(row: AuditEntryRow): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    actorAccountId: row.actorAccountId,
    actorKeyId: row.actorKeyId,
    action: row.action,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    field: row.field,
    oldValue: row.oldValue,
    newValue: row.newValue,
  };
}

export class SqlAuditLog implements AuditLog {
  private readonly entries: Repository<AuditEntryRow>;

  constructor(private readonly manager: EntityManager) {
    this.entries = manager.getRepository(AuditEntrySchema);
  }

  // Many rows, one statement: SQL.
  redactAbout(personIds: number[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (personIds.length === 0) return;
      await this.manager.query(
        `UPDATE audit_entries
            SET old_value = CASE WHEN old_value IS NULL THEN NULL ELSE $3 END,
                new_value = CASE WHEN new_value IS NULL THEN NULL ELSE $3 END
          WHERE subject_type = ANY($1::text[]) AND subject_id = ANY($2::int[])
            AND (old_value IS NOT NULL OR new_value IS NOT NULL)`,
        [PERSON_SUBJECTS, personIds, REDACTED],
      );
    });
  }

  // As many rows as a large import changes people, in one statement: SQL (the Repository API
  // spent seconds building the statement for 100,000 entries).
  record(entries: NewAuditEntry[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (entries.length === 0) return;
      // `at` is left to the database's clock, so entries of one transaction share one time.
      await this.manager.query(
        `INSERT INTO audit_entries (actor_account_id, actor_key_id, action, subject_type, subject_id, field, old_value, new_value)
         SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[])`,
        [
          entries.map((e) => e.actorAccountId),
          entries.map((e) => e.actorKeyId),
          entries.map((e) => e.action),
          entries.map((e) => e.subjectType),
          entries.map((e) => e.subjectId),
          entries.map((e) => e.field),
          entries.map((e) => e.oldValue),
          entries.map((e) => e.newValue),
        ],
      );
    });
  }

  list({ personId, since, limit }: AuditQuery): Promise<AuditEntry[]> {
    return withDatabaseErrors(async () => {
      const at = since === undefined ? {} : { at: MoreThanOrEqual(since) };
      const rows = await this.entries.find({
        // About the person (its record or its account), or done by its account.
        where:
          personId === undefined
            ? at
            : [
                { ...at, actorAccountId: personId },
                { ...at, subjectType: In(PERSON_SUBJECTS), subjectId: personId },
              ],
        order: { at: 'DESC', id: 'DESC' },
        take: limit,
      });
      return rows.map(toAuditEntry);
    });
  }
}
