import { hiddenChangeSql } from '../../application/changes/change-view';
import { failingSinceSql } from '../../application/webhooks/failing-mark';
import { NO_WAIT_FOR_DISK } from './delivery-outcome-writer';
import { queuedBeforeWindowSql, resendsFailedSql } from './webhook-waiting-sql';

/**
 * Leases up to `$3` enabled subscriptions behind the change log until `$2`, skipping those
 * another instance holds or is claiming right now, and those with deliveries queued to go first
 * (sent again by `webhooks enable`: what waited goes oldest first). "Behind" compares the cursor with the newest
 * seq (one read at the end of the primary key), evaluated only when some subscription is there
 * to compare: without subscriptions the change log is not read at all. Leases need not wait for
 * the disk: one lost in a crash of PostgreSQL was never recorded, and its window is claimed again.
 */
export const CLAIM_WINDOWS_SQL = `
  WITH ${NO_WAIT_FOR_DISK},
  behind AS (
    SELECT s.id FROM webhook_subscriptions s
    WHERE s.disabled_at IS NULL AND (s.lease_until IS NULL OR s.lease_until <= $1)
      AND s.sent_seq < (SELECT max(seq) FROM changes)
      AND NOT ${queuedBeforeWindowSql('s.id', '$1')}
    ORDER BY s.sent_seq, s.id
    LIMIT $3
    FOR UPDATE OF s SKIP LOCKED
  )
  UPDATE webhook_subscriptions s SET lease_until = $2
  FROM behind, no_wait_for_disk
  WHERE s.id = behind.id
  RETURNING s.id, s.url, s.events, s.secret, s.previous_secret, s.previous_secret_expires_at,
    s.failing_since, s.sent_seq`;

/**
 * The changes after each cursor (`$1`, distinct), at most `$2` each, with whether each is about
 * an admin and so sent to nobody (all but person.removed, which says a member became one). The change log draws seq at commit under a lock, so no change is committed later
 * below a cursor: reading after it never skips one.
 */
export const READ_WINDOWS_SQL = `
  SELECT k.after, c.seq, c.at, c.type, c.person_id, ${hiddenChangeSql('c', 'p')} AS admin
  FROM unnest($1::bigint[]) AS k(after)
  CROSS JOIN LATERAL (
    SELECT seq, at, type, person_id FROM changes WHERE seq > k.after ORDER BY seq LIMIT $2
  ) c
  LEFT JOIN people p ON p.id = c.person_id
  ORDER BY k.after, c.seq`;

/**
 * Records a window in one statement, only while its lease (`$1`, `$2`) is still the claim's: the
 * subscription's cursor moves to `$3` and its lease is released, its failing mark follows the
 * attempts (`$4` whether one succeeded, `$5` the first failure after the last success), a reason
 * `$6` disables it at `$7` (what waits stays pending, as when a retry gives up); each change
 * becomes a delivery row with its outcome, and, when it was sent, its attempt. A change sent and
 * failed goes on in the retry path (pending, due at `next_attempt_at`); one not sent is due at once.
 * Not waiting for the disk: a window lost in a crash of PostgreSQL is sent again, same webhook-ids.
 */
export const RECORD_WINDOW_SQL = `
  WITH ${NO_WAIT_FOR_DISK},
  sub AS (
    UPDATE webhook_subscriptions s
    SET sent_seq = greatest(s.sent_seq, $3::bigint), lease_until = NULL,
      failing_since = ${failingSinceSql('s.failing_since', '$4::boolean', '$5::timestamptz')},
      disabled_at = CASE WHEN $6::text IS NULL THEN s.disabled_at
                         ELSE coalesce(s.disabled_at, $7::timestamptz) END,
      disabled_reason = CASE WHEN $6::text IS NULL OR s.disabled_at IS NOT NULL THEN s.disabled_reason
                             ELSE $6::text END
    WHERE s.id = $1 AND s.lease_until = $2
    RETURNING s.id
  ),
  f AS (
    SELECT * FROM unnest($8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[], $13::int[],
                         $14::timestamptz[], $15::timestamptz[], $16::int[], $17::int[], $18::text[])
      AS f(seq, type, message_id, payload, status, failure, next_attempt_at, at, status_code, duration_ms, error)
  ),
  d AS (
    INSERT INTO webhook_deliveries (subscription_id, seq, message_id, type, payload, status, attempts,
                                    failures, next_attempt_at, created_at, delivered_at)
    SELECT sub.id, f.seq, f.message_id, f.type, f.payload, f.status, CASE WHEN f.at IS NULL THEN 0 ELSE 1 END,
      f.failure, coalesce(f.next_attempt_at, f.at, $7::timestamptz), coalesce(f.at, f.next_attempt_at, $7::timestamptz),
      CASE WHEN f.status = 'delivered' THEN f.at END
    FROM f, sub
    ORDER BY f.seq
    ON CONFLICT (subscription_id, seq) DO NOTHING
    RETURNING id, seq
  ),
  a AS (
    INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, error)
    SELECT d.id, f.at, f.status_code, f.duration_ms, f.error FROM d JOIN f ON f.seq = d.seq
    WHERE f.at IS NOT NULL
    ORDER BY f.at
  ),
  resends AS (
    ${resendsFailedSql('(SELECT id FROM sub)')} AND $6::text IS NOT NULL
  )
  SELECT count(*)::int AS recorded FROM sub, no_wait_for_disk`;
