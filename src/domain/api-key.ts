import type { Permission } from './permission';

export interface ApiKey {
  id: number;
  /** The person whose account issued the key. */
  accountId: number;
  name: string | null;
  /** The first characters of the token, kept for display; never enough to use it. */
  prefix: string;
  permissions: Permission[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export const MAX_ACTIVE_KEYS = 100;
export const KEY_NAME_MAX_LENGTH = 100;
export const MAX_EXPIRES_IN_DAYS = 365;

export function isActive(key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>, now: Date): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > now.getTime());
}
