import { type EntityManager, In, MoreThanOrEqual, type Repository } from 'typeorm';
import type { AuditLog, AuditQuery } from '../../application/ports/audit-log';
import type { AuditEntry, NewAuditEntry } from '../../domain/audit-entry';
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

export class TypeOrmAuditLog implements AuditLog {
  private readonly entries: Repository<AuditEntryRow>;

  constructor(manager: EntityManager) {
    this.entries = manager.getRepository(AuditEntrySchema);
  }

  record(entries: NewAuditEntry[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (entries.length === 0) return;
      // `at` is left to the database's clock, so entries of one transaction share one time.
      await this.entries.insert(
        entries.map((entry) => ({
          actorAccountId: entry.actorAccountId,
          actorKeyId: entry.actorKeyId,
          action: entry.action,
          subjectType: entry.subjectType,
          subjectId: entry.subjectId,
          field: entry.field,
          oldValue: entry.oldValue,
          newValue: entry.newValue,
        })),
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
