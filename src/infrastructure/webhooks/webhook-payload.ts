import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { encodeCursor } from '../../application/changes/change-cursor';

/** SPEC §7's body of a change's delivery, as it is sent (the OpenAPI document's WebhookChange). */
export interface WebhookPayloadJson {
  type: string;
  seq: number;
  person_id: number;
  at: string;
  cursor: string;
}

/** What a change becomes on the wire for a subscription. */
export interface WebhookWire {
  /** SPEC §7's body, with the cursor GET /changes would give. */
  payload(change: { seq: number; at: Date; type: string; personId: number }): string;
  /**
   * The `webhook-id`: the same on every attempt, by whichever instance, also when a window is
   * sent again because its first sending was never recorded (a crash, a lost lease), so that the
   * receiver can drop the duplicate. The directory's id keeps two directories' ids apart.
   */
  messageId(subscriptionId: number, seq: number): string;
}

/**
 * SPEC §7's body: `{"type", "seq", "person_id", "at", "cursor"}`. The cursor lets a receiver
 * that missed something follow GET /changes from exactly this change on.
 */
export async function webhookPayloads(manager: EntityManager): Promise<WebhookWire> {
  const [meta] = await manager.query('SELECT directory_id FROM directory_meta');
  const directoryId = String(meta.directory_id);
  return {
    payload: ({ seq, at, type, personId }) =>
      JSON.stringify({
        type,
        seq,
        person_id: personId,
        at: at.toISOString(),
        cursor: encodeCursor({ directoryId, seq }),
      } satisfies WebhookPayloadJson),
    messageId: (subscriptionId, seq) =>
      `msg_${createHash('sha256').update(`${directoryId}:${subscriptionId}:${seq}`).digest('hex').slice(0, 32)}`,
  };
}
