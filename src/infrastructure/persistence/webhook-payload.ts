import type { EntityManager } from 'typeorm';
import { encodeCursor } from '../../application/changes/change-cursor';
import type { PayloadOf } from './sql-webhook-store';

/**
 * SPEC §7's body: `{"type", "seq", "person_id", "at", "cursor"}`. The cursor lets a receiver
 * that missed something follow GET /changes from exactly this change on.
 */
export async function webhookPayloads(manager: EntityManager): Promise<PayloadOf> {
  const [meta] = await manager.query('SELECT directory_id FROM directory_meta');
  const directoryId = String(meta.directory_id);
  return ({ seq, at, type, personId }) =>
    JSON.stringify({
      type,
      seq,
      person_id: personId,
      at: at.toISOString(),
      cursor: encodeCursor({ directoryId, seq }),
    });
}
