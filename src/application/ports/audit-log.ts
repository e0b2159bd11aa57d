import type { AuditEntry, NewAuditEntry } from '../../domain/audit-entry';

export interface AuditQuery {
  personId?: number;
  since?: Date;
  limit?: number;
}

export interface AuditLog {
  /** The store stamps the entries with its clock (a database: the transaction's start), one time for all. */
  record(entries: NewAuditEntry[]): Promise<void>;
  /**
   * Replaces every old and new value (those set) of the entries about these people, their records
   * and their accounts, by "[erased]" (SPEC §8).
   */
  redactAbout(personIds: number[]): Promise<void>;
  /** Newest first. `personId` matches entries about that person or made by that account. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
}
