import { EntitySchema } from 'typeorm';

export interface AuditEntryRow {
  id: number;
  at: Date;
  actorAccountId: number | null;
  actorKeyId: number | null;
  action: string;
  subjectType: string;
  subjectId: number;
  field: string | null;
  oldValue: string | null;
  newValue: string | null;
}

/** No relations on purpose: the audit trail outlives what it describes. */
export const AuditEntrySchema = new EntitySchema<AuditEntryRow>({
  name: 'AuditEntry',
  tableName: 'audit_entries',
  columns: {
    id: {
      type: 'integer',
      primary: true,
      generated: 'increment',
      primaryKeyConstraintName: 'audit_entries_pkey',
    },
    at: { type: 'timestamptz', default: () => 'now()' },
    actorAccountId: { type: 'integer', name: 'actor_account_id', nullable: true },
    actorKeyId: { type: 'integer', name: 'actor_key_id', nullable: true },
    action: { type: 'text' },
    subjectType: { type: 'text', name: 'subject_type' },
    subjectId: { type: 'integer', name: 'subject_id' },
    field: { type: 'text', nullable: true },
    oldValue: { type: 'text', name: 'old_value', nullable: true },
    newValue: { type: 'text', name: 'new_value', nullable: true },
  },
  indices: [
    { name: 'audit_entries_subject_idx', columns: ['subjectType', 'subjectId', 'at'] },
    { name: 'audit_entries_actor_idx', columns: ['actorAccountId', 'at'] },
    { name: 'audit_entries_at_idx', columns: ['at'] },
  ],
});
