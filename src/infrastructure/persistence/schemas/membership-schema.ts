import { EntitySchema } from 'typeorm';
import type { ClubRow } from './club-schema';
import type { PersonRow } from './person-schema';

export interface MembershipRow {
  id: number;
  personId: number;
  clubId: number;
  kind: string | null;
  /** `YYYY-MM-DD`: DATE values are read as strings, never as Dates shifted by a time zone. */
  startDate: string;
  endDate: string | null;
  person?: PersonRow;
  club?: ClubRow;
}

export const MembershipSchema = new EntitySchema<MembershipRow>({
  name: 'Membership',
  tableName: 'memberships',
  columns: {
    id: {
      type: 'integer',
      primary: true,
      generated: 'increment',
      primaryKeyConstraintName: 'memberships_pkey',
    },
    personId: { type: 'integer', name: 'person_id' },
    clubId: { type: 'integer', name: 'club_id' },
    kind: { type: 'text', nullable: true },
    startDate: { type: 'date', name: 'start_date' },
    endDate: { type: 'date', name: 'end_date', nullable: true },
  },
  relations: {
    person: {
      type: 'many-to-one',
      target: 'Person',
      joinColumn: { name: 'person_id', foreignKeyConstraintName: 'memberships_person_id_fkey' },
      onDelete: 'CASCADE',
    },
    club: {
      type: 'many-to-one',
      target: 'Club',
      joinColumn: { name: 'club_id', foreignKeyConstraintName: 'memberships_club_id_fkey' },
    },
  },
  checks: [{ name: 'memberships_dates_check', expression: 'end_date IS NULL OR end_date >= start_date' }],
  indices: [
    { name: 'memberships_person_dates_idx', columns: ['personId', 'startDate', 'endDate'] },
    { name: 'memberships_club_id_idx', columns: ['clubId'] },
  ],
});
