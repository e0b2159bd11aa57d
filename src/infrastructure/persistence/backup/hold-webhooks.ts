import type { QueryRunner } from 'typeorm';

/** A webhook subscription of a restored directory, disabled until the operator resumes it. */
export interface HeldWebhook {
  id: number;
  url: string;
  /** Why it was already disabled in the backup; null when the restore disabled it. */
  disabledBefore: string | null;
}

export const RESTORED_REASON = 'restored from a backup';

/**
 * Disables every webhook subscription of a directory just restored (SPEC §5): a copy, made to try
 * an upgrade or to move to another server, must not call the receivers with the original's secrets
 * beside the original, nor hand them a change twice. Nothing that waited is touched, and the
 * cursors stay where the backup left them: `webhooks enable ID` sends each subscription what it had
 * not been sent then, and what the copy committed since. One already disabled keeps its reason.
 */
export async function holdWebhooks(runner: QueryRunner): Promise<HeldWebhook[]> {
  const rows: { id: number; url: string; disabled_before: string | null }[] = await runner.query(
    `WITH held AS (
       UPDATE webhook_subscriptions s
       SET disabled_at = coalesce(s.disabled_at, now()),
           disabled_reason = coalesce(s.disabled_reason, $1), lease_until = NULL
       FROM (SELECT id, disabled_reason FROM webhook_subscriptions) b
       WHERE b.id = s.id
       RETURNING s.id, s.url, b.disabled_reason AS disabled_before
     ) SELECT * FROM held ORDER BY id`,
    [RESTORED_REASON],
  );
  return rows.map((row) => ({ id: Number(row.id), url: row.url, disabledBefore: row.disabled_before }));
}
