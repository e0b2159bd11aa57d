import type { AuditEntry } from '../../domain/audit-entry';
import { InvalidInput } from '../../domain/errors';
import type { AuditLog } from '../ports/audit-log';

export interface ReadAuditLogInput {
  /** Entries about this person (or account), or made by this account. */
  personId?: number;
  since?: Date;
  limit?: number;
}

export const AUDIT_DEFAULT_LIMIT = 100;
export const AUDIT_MAX_LIMIT = 10_000;

/** The newest entries of the audit log first. */
export class ReadAuditLog {
  constructor(private readonly audit: AuditLog) {}

  async execute(input: ReadAuditLogInput = {}): Promise<AuditEntry[]> {
    const limit = input.limit ?? AUDIT_DEFAULT_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > AUDIT_MAX_LIMIT) {
      throw new InvalidInput(`the limit must be a whole number from 1 to ${AUDIT_MAX_LIMIT}`);
    }
    if (input.personId !== undefined && (!Number.isSafeInteger(input.personId) || input.personId < 1)) {
      throw new InvalidInput('the person id must be a positive whole number');
    }
    if (input.since !== undefined && Number.isNaN(input.since.getTime())) {
      throw new InvalidInput('the since date is not a valid date');
    }
    return this.audit.list({ personId: input.personId, since: input.since, limit });
  }
}
