import type { DataSource } from 'typeorm';
import type { ChangeWindow, WindowChange } from '../../application/ports/webhook-store';
import { returned } from './returned-rows';
import { secretsOf } from './signing-secrets';
import type { WebhookWire } from './webhook-payload';
import { CLAIM_WINDOWS_SQL, READ_WINDOWS_SQL } from './webhook-window-sql';

/**
 * Leases up to `limit` enabled subscriptions behind the change log until `leaseUntil`
 * (CLAIM_WINDOWS_SQL), each with its window: the changes after its cursor that it is sent, at most
 * `windowLimit` read past it, each change's body made once for all who take it. Reads nothing of
 * the change log when no subscription is behind.
 */
export async function claimChangeWindows(
  dataSource: DataSource,
  wireOf: () => Promise<WebhookWire>,
  {
    now,
    leaseUntil,
    limit,
    windowLimit,
  }: { now: Date; leaseUntil: Date; limit: number; windowLimit: number },
): Promise<ChangeWindow[]> {
  const claimed: {
    id: number;
    url: string;
    events: string[] | null;
    secret: string;
    previous_secret: string | null;
    previous_secret_expires_at: Date | null;
    failing_since: Date | null;
    sent_seq: string;
  }[] = returned(await dataSource.query(CLAIM_WINDOWS_SQL, [now, leaseUntil, limit]));
  if (claimed.length === 0) return [];
  // Read once per distinct cursor: subscriptions that keep up share one.
  const cursors = [...new Set(claimed.map((row) => String(row.sent_seq)))];
  const read: {
    after: string;
    seq: string;
    at: Date;
    type: string;
    person_id: number;
    admin: boolean;
  }[] = await dataSource.query(READ_WINDOWS_SQL, [cursors, windowLimit]);
  const wire = await wireOf();
  const payloads = new Map<number, string>();
  return claimed.map((row): ChangeWindow => {
    const subscriptionId = Number(row.id);
    const after = String(row.sent_seq);
    const mine = read.filter((change) => String(change.after) === after);
    const changes: WindowChange[] = [];
    for (const change of mine) {
      // Admins never appear (SPEC §1): their changes move the cursor and are sent to nobody.
      if (change.admin) continue;
      if (row.events !== null && !row.events.includes(change.type)) continue;
      const seq = Number(change.seq);
      let payload = payloads.get(seq);
      if (payload === undefined) {
        payload = wire.payload({
          seq,
          at: change.at,
          type: change.type,
          personId: Number(change.person_id),
        });
        payloads.set(seq, payload);
      }
      changes.push({ seq, type: change.type, messageId: wire.messageId(subscriptionId, seq), payload });
    }
    return {
      subscriptionId,
      url: row.url,
      secrets: secretsOf(row, now),
      failingSince: row.failing_since,
      leaseUntil,
      changes,
      throughSeq: mine.length === 0 ? Number(after) : Number(mine[mine.length - 1].seq),
    };
  });
}
