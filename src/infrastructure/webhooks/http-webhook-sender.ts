import { Webhook } from 'standardwebhooks';
import type { SendResult, WebhookMessage, WebhookSender } from '../../application/ports/webhook-sender';
import { SEND_TIMEOUT_MS } from '../../domain/webhook';

const USER_AGENT = 'membership-directory-webhooks/1.0';

/** Node's and fetch's error codes, in words an operator reads in `webhooks deliveries`. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  // fetch's word for a connection the receiver closed before its answer.
  UND_ERR_SOCKET: 'connection reset by the receiver',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed for now',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed by the receiver',
};

/** Seconds, or an HTTP date (RFC 9110 §10.2.3); null for anything else. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (value === undefined || value === null) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * Why fetch failed, in a line: its cause's code in words, or the cause's own first line. Read by
 * shape, not `instanceof`: fetch's errors may come from another realm (a test runner's).
 */
function networkError(error: unknown, url: URL): string {
  const { message, cause } = error as { message?: unknown; cause?: { message?: unknown; code?: unknown } };
  if (typeof cause?.message !== 'string') return String(message ?? error);
  // The Fetch standard's "bad ports" (those of SMTP, IRC, X11...): fetch never connects to them.
  if (cause.message === 'bad port') return `port ${url.port} is one that fetch refuses to connect to`;
  const known = typeof cause.code === 'string' ? NETWORK_ERRORS[cause.code] : undefined;
  return known ?? cause.message.split('\n')[0];
}

/**
 * Signs the message with every secret given (Standard Webhooks 1.0, through the scheme's own
 * library: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, space-separated when several) and
 * POSTs it with fetch. Redirects are not followed (`redirect: 'manual'`): a 3xx is a failure. The
 * receiver has `timeoutMs` from the start of the connection to its status line; the body of its
 * answer is read and thrown away within the same time, so that the connection is kept alive for
 * the next delivery to it.
 */
export class HttpWebhookSender implements WebhookSender {
  constructor(private readonly timeoutMs = SEND_TIMEOUT_MS) {}

  /** The headers of one attempt; the timestamp is the real time of sending, as receivers check it. */
  static headers(message: WebhookMessage, at: Date): Record<string, string> {
    const signature = message.secrets
      .map((secret) => new Webhook(secret).sign(message.messageId, at, message.payload))
      .join(' ');
    return {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': message.messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
  }

  async send(message: WebhookMessage, signal?: AbortSignal): Promise<SendResult> {
    const started = performance.now();
    const result = (fields: Omit<SendResult, 'durationMs'>): SendResult => ({
      ...fields,
      durationMs: Math.round(performance.now() - started),
    });
    const failed = (error: string) => result({ statusCode: null, error, retryAfterMs: null });

    let url: URL;
    try {
      url = new URL(message.url);
    } catch {
      return failed('the URL cannot be parsed');
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: HttpWebhookSender.headers(message, new Date()),
        body: message.payload,
        redirect: 'manual',
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
    } catch (error) {
      if (signal?.aborted) return failed('cancelled: the service was shutting down');
      if (timeout.aborted) {
        const limit = this.timeoutMs % 1000 === 0 ? `${this.timeoutMs / 1000} s` : `${this.timeoutMs} ms`;
        return failed(`no answer within ${limit}`);
      }
      return failed(networkError(error, url));
    }
    void drain(response);
    const status = response.status;
    if (status >= 200 && status < 300) return result({ statusCode: status, error: null, retryAfterMs: null });
    const location = response.headers.get('location');
    const error =
      status >= 300 && status < 400
        ? `HTTP ${status}: redirect${location ? ` to ${location}` : ''} not followed`
        : `HTTP ${status}`;
    return result({
      statusCode: status,
      error,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    });
  }
}

/** Reads the answer's body to its end (or until the send's time is up) and throws it away. */
async function drain(response: Response): Promise<void> {
  try {
    for await (const _chunk of response.body ?? []) {
      // Nothing is kept: a receiver's body is never read.
    }
  } catch {
    // Cut off by the timeout, or by the receiver: the outcome was already decided by the status.
  }
}
