import { hiddenChangeSql } from '../../application/changes/change-view';

// What waits for a subscription (SPEC §7, "Nothing is skipped, disabled or not"): the changes past
// its cursor that it takes, and its deliveries whose change never reached the receiver. Those stay
// pending whatever happens to the subscription: disabling it (a 410, three days without a success,
// a restore) only stops the sending, and `webhooks enable` sends them again. A delivered change
// sent again by hand (`webhooks redeliver`) keeps its `delivered_at`: it is pending while it is
// resent, but nothing waits for it, and disabling fails it. The SQL that says so lives here.

/** Whether delivery `d` waits: pending, and its change never delivered. */
export function waitingDeliverySql(d: string): string {
  return `(${d}.status = 'pending' AND ${d}.delivered_at IS NULL)`;
}

/**
 * What disabling subscription `subscription` (an SQL expression) does to its deliveries: what
 * waits stays pending, for `webhooks enable`; a resend by hand of a change it already had is
 * failed, since nothing waits for it.
 */
export function resendsFailedSql(subscription: string): string {
  return `UPDATE webhook_deliveries w SET status = 'failed', lease_until = NULL
    WHERE w.subscription_id = ${subscription} AND w.status = 'pending' AND w.delivered_at IS NOT NULL`;
}

/**
 * A delivery queued to go before the changes past its subscription's cursor: due, and not failed
 * since it was queued (sent by `webhooks enable` or `redeliver`, or left unsent by a window). While
 * one is, the subscription's next window waits, so that what waited is sent oldest first; once it
 * has failed it goes on in its retries and the window with it (order across changes is not
 * promised beyond that: receivers order by seq). The index `webhook_deliveries_queued_idx` holds
 * these rows alone.
 */
export function queuedBeforeWindowSql(subscription: string, now: string): string {
  return `EXISTS (SELECT 1 FROM webhook_deliveries q
    WHERE q.subscription_id = ${subscription} AND q.status = 'pending' AND q.failures = 0
      AND q.next_attempt_at <= ${now})`;
}

/** Changes past a cursor counted at most: beyond it, a backlog is "this many or more". */
export const BACKLOG_COUNT_LIMIT = 1000;

/**
 * Per subscription, disabled or not: what waits for it (above), with the oldest change's time and
 * seq. A delivery's change may be gone from the log by retention: its first attempt's time stands
 * in. Changes past the cursor are counted up to BACKLOG_COUNT_LIMIT, and the oldest of them is the
 * first in the feed: this runs at each scrape of /metrics, and on PGlite every request waits for
 * its one connection meanwhile. A disabled subscription 100,000 changes behind took 350-470 ms to
 * count in full on PGlite (75-110 ms on PostgreSQL), 5-35 ms (2-18) up to 1,000, on the shared
 * two cores under load.
 */
export const BACKLOG_SQL = `
  WITH waiting AS (
    SELECT d.subscription_id, count(*) AS count, min(coalesce(c.at, d.created_at)) AS oldest_at,
      min(d.seq) AS oldest_seq
    FROM webhook_deliveries d LEFT JOIN changes c ON c.seq = d.seq
    WHERE ${waitingDeliverySql('d')}
    GROUP BY d.subscription_id
  )
  SELECT s.id, s.disabled_at IS NOT NULL AS disabled,
    coalesce(w.count, 0) + u.count AS changes, u.count >= ${BACKLOG_COUNT_LIMIT} AS counted_up_to_limit,
    least(w.oldest_at, u.first_at) AS oldest_at, least(w.oldest_seq, u.first_seq) AS oldest_seq
  FROM webhook_subscriptions s
  LEFT JOIN waiting w ON w.subscription_id = s.id
  CROSS JOIN LATERAL (
    SELECT count(*) AS count, min(b.at) FILTER (WHERE b.first) AS first_at, min(b.seq) AS first_seq
    FROM (
      SELECT c.seq, c.at, row_number() OVER (ORDER BY c.seq) = 1 AS first
      FROM changes c
      WHERE c.seq > s.sent_seq AND (s.events IS NULL OR c.type = ANY(s.events))
        AND NOT EXISTS (SELECT 1 FROM people a WHERE a.id = c.person_id AND ${hiddenChangeSql('c', 'a')})
      ORDER BY c.seq
      LIMIT ${BACKLOG_COUNT_LIMIT}
    ) b
  ) u
  ORDER BY s.id`;

/**
 * The status of a delivery that gave up (410, three days), `disables` (SQL boolean) saying whether
 * its subscription is disabled with it: then its change, never delivered, waits for `webhooks
 * enable`; a change the receiver once had (a resend by hand), or one that gave up alone while
 * others got through, is failed.
 */
export function givenUpStatusSql(disables: string): string {
  return `CASE WHEN ${disables} AND delivered_at IS NULL THEN 'pending' ELSE 'failed' END`;
}
