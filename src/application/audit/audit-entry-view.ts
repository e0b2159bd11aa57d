import type { AuditEntry } from '../../domain/audit-entry';

/** An audit entry as JSON (`audit --json`, the subject-access export), its fields listed one by one. */
export function auditEntryView(entry: AuditEntry) {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: entry.actorAccountId === null ? 'cli' : `account ${entry.actorAccountId}`,
    actor_account_id: entry.actorAccountId,
    actor_key_id: entry.actorKeyId,
    action: entry.action,
    subject_type: entry.subjectType,
    subject_id: entry.subjectId,
    field: entry.field,
    old_value: entry.oldValue,
    new_value: entry.newValue,
  };
}
