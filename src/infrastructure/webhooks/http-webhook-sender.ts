import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { SendResult, WebhookMessage, WebhookSender } from '../../application/ports/webhook-sender';
import { SEND_TIMEOUT_MS } from '../../domain/webhook';

const USER_AGENT = 'membership-directory-webhooks/1.0';

/** Node's error codes, in words an operator reads in `webhooks deliveries`. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed for now',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed by the receiver',
};

/** Seconds, or an HTTP date (RFC 9110 §10.2.3); null for anything else. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * Signs the message with every secret given (Standard Webhooks 1.0, through the scheme's own
 * library: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, space-separated when several) and
 * POSTs it. Redirects are not followed (Node's http never does): a 3xx is a failure. The receiver
 * has SEND_TIMEOUT_MS from the start of the connection to its status line. Connections are kept
 * alive between deliveries to the same receiver.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 16 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 16 }),
  };

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

  send(message: WebhookMessage, signal?: AbortSignal): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const settle = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', cancel);
        resolve({ ...result, durationMs: elapsed() });
      };
      const failed = (error: string) => settle({ statusCode: null, error, retryAfterMs: null });

      let url: URL;
      try {
        url = new URL(message.url);
      } catch {
        failed('the URL cannot be parsed');
        return;
      }
      const agent = url.protocol === 'https:' ? this.agents['https:'] : this.agents['http:'];
      const client = url.protocol === 'https:' ? https : http;
      const body = Buffer.from(message.payload, 'utf8');
      const request = client.request(url, {
        method: 'POST',
        agent,
        headers: { ...HttpWebhookSender.headers(message, new Date()), 'content-length': body.length },
      });
      // Until the status line; then until the body has been read, which is thrown away.
      const timer = setTimeout(() => {
        const limit = this.timeoutMs % 1000 === 0 ? `${this.timeoutMs / 1000} s` : `${this.timeoutMs} ms`;
        failed(`no answer within ${limit}`);
        request.destroy();
      }, this.timeoutMs);
      const cancel = () => {
        failed('cancelled: the service was shutting down');
        clearTimeout(timer);
        request.destroy();
      };
      if (signal?.aborted) {
        cancel();
        return;
      }
      signal?.addEventListener('abort', cancel, { once: true });

      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const retryAfter = response.headers['retry-after'];
        if (status >= 200 && status < 300) {
          settle({ statusCode: status, error: null, retryAfterMs: null });
        } else {
          const location = response.headers.location;
          const error =
            status >= 300 && status < 400
              ? `HTTP ${status}: redirect${location ? ` to ${location}` : ''} not followed`
              : `HTTP ${status}`;
          settle({ statusCode: status, error, retryAfterMs: parseRetryAfter(retryAfter) });
        }
        response.on('end', () => clearTimeout(timer));
        response.on('error', () => clearTimeout(timer));
        response.resume();
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        failed(NETWORK_ERRORS[error.code ?? ''] ?? error.message.split('\n')[0]);
      });
      request.end(body);
    });
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}
