import pg from 'pg';
import type { Logger } from 'pino';
import type { CredentialCache } from './credential-cache';
import { KEY_EVENT_CHANNELS } from './key-events';

export interface KeyEventsListenerOptions {
  /** First wait before reconnecting; doubled after each failure up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  connectTimeoutMs?: number;
  /** Shown in pg_stat_activity, so an operator can tell this connection from the pool's. */
  applicationName?: string;
}

/**
 * One PostgreSQL connection per instance, LISTENing for revocations and account changes made by
 * any process on the database (other instances, the command-line tool), and applying them to the
 * credential cache within milliseconds of their commit. While the connection is down the cache
 * is not served (CredentialCache.listenerDown), so a missed notification can never let a revoked
 * key through; the listener reconnects with a growing delay and starts from an empty cache.
 */
export class KeyEventsListener {
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly connectTimeoutMs: number;
  private readonly applicationName: string;
  private client: pg.Client | null = null;
  private up = false;
  private closed = false;
  private failures = 0;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly databaseUrl: string,
    private readonly cache: CredentialCache,
    private readonly logger: Logger,
    options: KeyEventsListenerOptions = {},
  ) {
    this.minBackoffMs = options.minBackoffMs ?? 250;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    this.applicationName = options.applicationName ?? 'membership-directory key events';
  }

  /** Whether notifications are being heard right now. */
  get listening(): boolean {
    return this.up;
  }

  /** Connects once; on failure keeps retrying in the background (the cache stays bypassed). */
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
    if (this.up) {
      this.up = false;
      this.cache.listenerDown();
    }
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.retry = null;
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      connectionTimeoutMillis: this.connectTimeoutMs,
      application_name: this.applicationName,
      // A peer that vanished without closing the socket is noticed by TCP keepalive.
      keepAlive: true,
    });
    this.client = client;
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.heard(message));
    try {
      await client.connect();
      await client.query(
        `LISTEN ${KEY_EVENT_CHANNELS.keyRevoked}; LISTEN ${KEY_EVENT_CHANNELS.accountChanged}`,
      );
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client) return;
    if (this.failures > 0) this.logger.info('listening for key revocations again');
    this.failures = 0;
    this.up = true;
    this.cache.listenerUp();
  }

  private heard(message: pg.Notification): void {
    const id = Number(message.payload);
    if (!Number.isSafeInteger(id)) {
      // Not one of ours in shape: forgetting everything is always safe.
      this.cache.clear();
    } else if (message.channel === KEY_EVENT_CHANNELS.keyRevoked) {
      this.cache.keyRevoked(id);
    } else if (message.channel === KEY_EVENT_CHANNELS.accountChanged) {
      this.cache.accountChanged(id);
    }
  }

  /** The connection `client` is gone (or never came): stop serving the cache, then try again. */
  private lost(client: pg.Client | null, error?: unknown): void {
    if (client === null || this.client !== client) return;
    this.client = null;
    if (this.up) {
      this.up = false;
      this.cache.listenerDown();
    }
    client.end().catch(() => undefined);
    if (this.closed) return;
    if (this.failures === 0) {
      this.logger.warn(
        { err: error },
        'not listening for key revocations: every request reads its key from the database until reconnected',
      );
    }
    const delay = Math.min(this.maxBackoffMs, this.minBackoffMs * 2 ** this.failures);
    this.failures += 1;
    // Unreferenced: a pending reconnection never keeps the process alive.
    this.retry = setTimeout(() => void this.connect(), delay).unref();
  }
}
