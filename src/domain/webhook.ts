/** The rules of webhook subscriptions and of retrying their deliveries (SPEC §7, "Webhooks"). */

/** A receiver has this long to answer 2xx. */
export const SEND_TIMEOUT_MS = 10_000;

/** Retrying stops, and the subscription is disabled, after this long without a success. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3600_000;

/** After a rotation the previous secret keeps signing this long, so receivers can switch over. */
export const PREVIOUS_SECRET_LIFETIME_MS = 24 * 3600_000;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The waits after the 1st, 2nd, ... failure; every later failure waits as long as the last. */
export const RETRY_SCHEDULE_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR];

/** ±20 %: receivers that failed together (an outage) are not all retried in the same second. */
const JITTER = 0.2;

/**
 * How long to wait after the `failures`-th failure in a row (1 for the first): the schedule with
 * jitter, but never less than the receiver's Retry-After, which is capped at the longest step of
 * the schedule so that a receiver cannot park its deliveries past the three days.
 */
export function retryDelayMs(
  failures: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  const step = RETRY_SCHEDULE_MS[Math.min(failures, RETRY_SCHEDULE_MS.length) - 1] ?? RETRY_SCHEDULE_MS[0];
  const jittered = Math.round(step * (1 - JITTER + 2 * JITTER * random()));
  const longest = RETRY_SCHEDULE_MS[RETRY_SCHEDULE_MS.length - 1];
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, longest));
}

/**
 * Why a URL cannot receive webhooks, or null when it can. Only http and https; no user name or
 * password in it (it would be stored and shown in `webhooks list`: a secret belongs in the
 * receiver's signature check). Loopback and private addresses are allowed on purpose: the chat
 * bot often runs beside the directory.
 */
export function webhookUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not a URL; give one such as https://example.org/hooks`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `only http and https URLs can receive webhooks, not ${url.protocol.replace(/:$/, '')}`;
  }
  if (url.username !== '' || url.password !== '') {
    return 'the URL must not hold a user name or password: receivers check the signature instead';
  }
  if (url.hash !== '') return 'the URL must not have a #fragment: it is never sent to the receiver';
  return null;
}

/**
 * The type of a test delivery (`webhooks ping`): `{"type": "webhook.ping", "subscription_id",
 * "at"}`, signed like every delivery. No change is behind it: it has no seq, person or cursor, and it
 * is neither recorded nor retried.
 */
export const PING_TYPE = 'webhook.ping';
