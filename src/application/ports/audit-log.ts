import type { AuditEntry, NewAuditEntry } from '../../domain/audit-entry';

export interface AuditQuery {
  personId?: number;
  since?: Date;
  limit?: number;
}

export interface AuditLog {
  record(entries: NewAuditEntry[]): Promise<void>;
  /** Newest first. `personId` matches entries about that person or made by that account. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
}
