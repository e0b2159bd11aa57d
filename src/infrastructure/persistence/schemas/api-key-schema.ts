import { EntitySchema } from 'typeorm';
import type { PersonRow } from './person-schema';

export interface ApiKeyRow {
  id: number;
  personId: number;
  name: string | null;
  prefix: string;
  tokenHash: string;
  permissions: string[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  person?: PersonRow;
}

export const ApiKeySchema = new EntitySchema<ApiKeyRow>({
  name: 'ApiKey',
  tableName: 'api_keys',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment', primaryKeyConstraintName: 'api_keys_pkey' },
    personId: { type: 'integer', name: 'person_id' },
    name: { type: 'text', nullable: true },
    prefix: { type: 'text' },
    tokenHash: { type: 'text', name: 'token_hash' },
    permissions: { type: 'text', array: true, default: () => "'{}'" },
    createdAt: { type: 'timestamptz', name: 'created_at', default: () => 'now()' },
    expiresAt: { type: 'timestamptz', name: 'expires_at', nullable: true },
    lastUsedAt: { type: 'timestamptz', name: 'last_used_at', nullable: true },
    revokedAt: { type: 'timestamptz', name: 'revoked_at', nullable: true },
  },
  relations: {
    person: {
      type: 'many-to-one',
      target: 'Person',
      joinColumn: { name: 'person_id', foreignKeyConstraintName: 'api_keys_person_id_fkey' },
      onDelete: 'CASCADE',
    },
  },
  uniques: [{ name: 'api_keys_token_hash_key', columns: ['tokenHash'] }],
  indices: [{ name: 'api_keys_person_created_idx', columns: ['personId', 'createdAt'] }],
});
