/** One change to the directory: who made it, to what, and when. */
export interface AuditEntry {
  id: number;
  at: Date;
  /** The account that made the change; null for the command line run by an operator. */
  actorAccountId: number | null;
  actorKeyId: number | null;
  /** e.g. "person.update", "key.issue", "key.revoke", "account.grant". */
  action: string;
  /** What was changed: "person", "api_key" or "account", and its id. */
  subjectType: string;
  subjectId: number;
  field: string | null;
  oldValue: string | null;
  newValue: string | null;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'at'>;

/** What old and new values about an erased person become (SPEC §8). */
export const REDACTED = '[erased]';
