import type { EntityManager } from 'typeorm';

/**
 * PostgreSQL notification channels that tell every instance to forget cached credentials. A
 * NOTIFY issued inside a transaction is delivered only when it commits, so listeners never hear
 * of a change that was rolled back, nor of one before it is visible to their next query.
 * Channels are database-wide: instances on other schemas of the same database hear them too,
 * which costs them a cache miss and nothing else.
 */
export const KEY_EVENT_CHANNELS = {
  /** Payload: the key id. */
  keyRevoked: 'api_key_revoked',
  /** Payload: the person id of the account (disabled, enabled, permissions changed). */
  accountChanged: 'account_changed',
} as const;

export type KeyEventChannel = (typeof KEY_EVENT_CHANNELS)[keyof typeof KEY_EVENT_CHANNELS];

/** Announces a change on the manager's connection (its transaction, when it has one). */
export async function notifyKeyEvent(
  manager: EntityManager,
  channel: KeyEventChannel,
  id: number,
): Promise<void> {
  await manager.query('SELECT pg_notify($1, $2)', [channel, String(id)]);
}
