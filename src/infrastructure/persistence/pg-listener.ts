import pg from 'pg';
import type { Logger } from 'pino';

export interface PgListenerOptions {
  channels: string[];
  /** Shown in pg_stat_activity, so an operator can tell this connection from the pool's. */
  applicationName: string;
  /** Logged once when the connection is lost, and once when it is back. */
  messages: { lost: string; back: string };
  /** First wait before reconnecting; doubled after each failure up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  connectTimeoutMs?: number;
}

export interface PgListenerHandlers {
  notification(message: pg.Notification): void;
  /** Listening (again). Notifications sent while it was down are lost: make up for them here. */
  up(): void;
  /** Not listening any more (lost, or closed). */
  down(): void;
}

/**
 * One PostgreSQL connection LISTENing on some channels, reconnecting with a growing delay when it
 * is lost. The key-events listener and the webhooks' wake-up both stand on it.
 */
export class PgListener {
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly connectTimeoutMs: number;
  private client: pg.Client | null = null;
  private closed = false;
  private failures = 0;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly databaseUrl: string,
    private readonly options: PgListenerOptions,
    private readonly handlers: PgListenerHandlers,
    private readonly logger: Logger,
  ) {
    this.minBackoffMs = options.minBackoffMs ?? 250;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  }

  /** Connects once; on failure keeps retrying in the background. */
  async start(): Promise<void> {
    if (this.closed || this.client !== null || this.retry !== null) return;
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    this.handlers.down();
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.retry = null;
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      connectionTimeoutMillis: this.connectTimeoutMs,
      application_name: this.options.applicationName,
      // A peer that vanished without closing the socket is noticed by TCP keepalive.
      keepAlive: true,
    });
    this.client = client;
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.handlers.notification(message));
    try {
      await client.connect();
      await client.query(this.options.channels.map((channel) => `LISTEN ${channel}`).join('; '));
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client) return;
    if (this.failures > 0) this.logger.info(this.options.messages.back);
    this.failures = 0;
    this.handlers.up();
  }

  /** The connection `client` is gone (or never came): tell the handlers, then try again. */
  private lost(client: pg.Client, error?: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    this.handlers.down();
    client.end().catch(() => undefined);
    if (this.closed) return;
    if (this.failures === 0) this.logger.warn({ err: error }, this.options.messages.lost);
    const delay = Math.min(this.maxBackoffMs, this.minBackoffMs * 2 ** this.failures);
    this.failures += 1;
    // Unreferenced: a pending reconnection never keeps the process alive.
    this.retry = setTimeout(() => void this.connect(), delay).unref();
  }
}
