import type { Logger } from 'pino';
import type { createClient } from 'redis';

export interface RedisConnectionOptions {
  /** Every key this service writes starts with it (tests give each run its own). */
  keyPrefix?: string;
  /** A command not answered in this time fails, so a stalled Redis cannot stall requests. */
  commandTimeoutMs?: number;
  /** How long start() waits for a first connection before the service carries on without. */
  startTimeoutMs?: number;
}

/** Anything that sends raw Redis commands: the connection below, or a test's own. */
export interface RedisCommands {
  sendCommand(args: string[]): Promise<unknown>;
}

/**
 * The service's one Redis client, shared by the rate limit and the login throttle. Commands fail
 * at once while it is disconnected (no offline queue) and after a short timeout when Redis stalls,
 * so that callers can fall back instead of making requests wait; it reconnects by itself.
 */
export class RedisConnection implements RedisCommands {
  readonly keyPrefix: string;
  private readonly client: ReturnType<typeof createClient>;
  private readonly startTimeoutMs: number;
  private warned = false;

  constructor(
    url: string,
    private readonly logger: Logger,
    options: RedisConnectionOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? 'membership-directory:';
    this.startTimeoutMs = options.startTimeoutMs ?? 2000;
    // Loaded here, only when REDIS_URL is set: the client and its modules take about a quarter of
    // a second to load, which every command-line run and start-up without Redis would pay.
    const redis = require('redis') as typeof import('redis');
    this.client = redis.createClient({
      url,
      disableOfflineQueue: true,
      commandOptions: { timeout: options.commandTimeoutMs ?? 500 },
      socket: {
        connectTimeout: 2000,
        reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5000),
      },
    });
    // Operator events, one line each per outage, not one per reconnection attempt: what is lost
    // meanwhile is said in the line (the redis_up metric tells the same, see OperatorMetrics).
    this.client.on('error', (error: unknown) => {
      if (this.warned) return;
      this.warned = true;
      this.logger.warn(
        { event: 'redis.lost', err: error },
        'Redis lost: sign-in lockouts and rate limits count per instance until it answers again',
      );
    });
    this.client.on('ready', () => {
      if (this.warned) {
        this.logger.info(
          { event: 'redis.regained' },
          'Redis regained: sign-in lockouts and rate limits are shared between instances again',
        );
      }
      this.warned = false;
    });
  }

  get ready(): boolean {
    return this.client.isReady;
  }

  /** Connects, waiting a little for the first connection; never fails (reconnection continues). */
  async start(): Promise<void> {
    if (this.client.isOpen) return;
    const connecting = this.client.connect().then(
      () => undefined,
      () => undefined,
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.startTimeoutMs);
    });
    await Promise.race([connecting, waited]);
    clearTimeout(timer);
  }

  sendCommand(args: string[]): Promise<unknown> {
    return this.client.sendCommand(args);
  }

  async close(): Promise<void> {
    if (!this.client.isOpen) return;
    if (this.client.isReady) {
      await this.client.close().catch(() => this.client.destroy());
    } else {
      this.client.destroy();
    }
  }
}
