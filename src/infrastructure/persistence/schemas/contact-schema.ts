import { EntitySchema } from 'typeorm';
import type { PersonRow } from './person-schema';

export interface ContactRow {
  id: number;
  personId: number;
  kind: string;
  value: string;
  /** foldCase of an email's value (null for other kinds): what the email filter matches. */
  valueFolded: string | null;
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
    valueFolded: { type: 'text', name: 'value_folded', nullable: true },
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
  checks: [
    { name: 'contacts_kind_check', expression: "kind IN ('email', 'phone', 'address')" },
    { name: 'contacts_value_folded_check', expression: "(kind = 'email') = (value_folded IS NOT NULL)" },
  ],
  indices: [
    { name: 'contacts_person_id_idx', columns: ['personId'] },
    // On value_folded for kind = 'email': a partial index the migration owns.
    { name: 'contacts_email_folded_idx', columns: ['valueFolded'], synchronize: false },
  ],
});
