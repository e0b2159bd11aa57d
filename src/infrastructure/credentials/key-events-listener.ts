import type pg from 'pg';
import type { Logger } from 'pino';
import type { CredentialCache } from './credential-cache';
import { KEY_EVENT_CHANNELS } from './key-events';
import { PgListener } from '../persistence/pg-listener';

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
  private readonly connection: PgListener;
  private up = false;

  constructor(
    databaseUrl: string,
    private readonly cache: CredentialCache,
    logger: Logger,
    options: KeyEventsListenerOptions = {},
  ) {
    this.connection = new PgListener(
      databaseUrl,
      {
        ...options,
        channels: [KEY_EVENT_CHANNELS.keyRevoked, KEY_EVENT_CHANNELS.accountChanged],
        applicationName: options.applicationName ?? 'membership-directory key events',
        messages: {
          lost: 'not listening for key revocations: every request reads its key from the database until reconnected',
          back: 'listening for key revocations again',
        },
      },
      {
        notification: (message) => this.heard(message),
        up: () => {
          this.up = true;
          this.cache.listenerUp();
        },
        // The cache is not served while revocations may be missed.
        down: () => {
          if (!this.up) return;
          this.up = false;
          this.cache.listenerDown();
        },
      },
      logger,
    );
  }

  /** Whether notifications are being heard right now. */
  get listening(): boolean {
    return this.up;
  }

  /** Connects once; on failure keeps retrying in the background (the cache stays bypassed). */
  start(): Promise<void> {
    return this.connection.start();
  }

  close(): Promise<void> {
    return this.connection.close();
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
}
