import { EntitySchema } from 'typeorm';
import type { PersonRow } from './person-schema';

export interface ContactRow {
  id: number;
  personId: number;
  kind: string;
  value: string;
  label: string | null;
  person?: PersonRow;
}

export const ContactSchema = new EntitySchema<ContactRow>({
  name: 'Contact',
  tableName: 'contacts',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment', primaryKeyConstraintName: 'contacts_pkey' },
    personId: { type: 'integer', name: 'person_id' },
    kind: { type: 'text' },
    value: { type: 'text' },
    label: { type: 'text', nullable: true },
  },
  relations: {
    person: {
      type: 'many-to-one',
      target: 'Person',
      joinColumn: { name: 'person_id', foreignKeyConstraintName: 'contacts_person_id_fkey' },
      onDelete: 'CASCADE',
    },
  },
  checks: [{ name: 'contacts_kind_check', expression: "kind IN ('email', 'phone', 'address')" }],
  indices: [
    { name: 'contacts_person_id_idx', columns: ['personId'] },
    // On lower(value) for kind = 'email': an expression index the migration owns.
    { name: 'contacts_email_lower_idx', columns: ['value'], synchronize: false },
  ],
});
