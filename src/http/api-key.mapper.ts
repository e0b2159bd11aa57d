import type { ApiKey } from '../domain/api-key';

/** An ApiKey as clients see it (SPEC §2). */
export interface ApiKeyResponse {
  id: number;
  token: string;
  name: string | null;
  permissions: string[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/**
 * Lists every field on purpose: the stored key has nothing secret, but a field added to it later
 * must not reach clients by accident. `token` is the full token once at issue, its mask after.
 */
export function mapApiKey(key: ApiKey, token: string): ApiKeyResponse {
  return {
    id: key.id,
    token,
    name: key.name,
    permissions: [...key.permissions],
    created_at: key.createdAt.toISOString(),
    expires_at: key.expiresAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
  };
}
