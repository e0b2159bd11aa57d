import { EntitySchema } from 'typeorm';

export interface ClubRow {
  id: number;
  name: string;
}

export const ClubSchema = new EntitySchema<ClubRow>({
  name: 'Club',
  tableName: 'clubs',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment', primaryKeyConstraintName: 'clubs_pkey' },
    name: { type: 'text' },
  },
  uniques: [{ name: 'clubs_name_key', columns: ['name'] }],
});
