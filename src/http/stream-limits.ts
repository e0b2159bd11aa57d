import type { RequestActivity } from '../request-activity';
import { HttpError } from './http-error';

/** A client that has not taken any of a stream for this long is cut off (SPEC §4). */
export const STALL_TIMEOUT_MS = 30_000;

/** Streams usually end within seconds; a client told to come back sooner would only be refused again. */
const RETRY_AFTER_SECONDS = 5;

/**
 * How long a stream past the bounds waits for a place, on average, before it is refused: a place
 * given back meanwhile goes to it, and a careless client that asks again at once, whatever
 * Retry-After says, asks about once a second (see StreamLimits). Each waits between half and one
 * and a half times this, at random: clients refused together would otherwise come back together,
 * again and again, and their bursts (a hundred requests within a few milliseconds) were what
 * delayed the slowest of another key's lookups (p99 × 1.7–2.4 of quiet against × 1.2–1.6 spread,
 * on PGlite; docs/decisions.md).
 */
export const PLACE_WAIT_MS = 1000;

/** Streams of one key waiting for a place at once; past that, 429 at once (a bounded queue). */
const WAITING_PER_KEY = 256;

export interface StreamLimitsOptions {
  perKey: number;
  perInstance: number;
  /** How long a stream may wait for its client to read; tests shorten it. */
  stallTimeoutMs?: number;
  /** How long a stream waits for a place, on average (PLACE_WAIT_MS); tests shorten it. */
  placeWaitMs?: number;
}

/** The request waiting for a place: gone once it closes (its client left). */
export interface StreamClient {
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

interface Waiter {
  keyId: number;
  /** Hands it a place. */
  admit(): void;
}

/**
 * How many long unpaged searches run at once, per key and in this process. Each holds a client
 * connection, memory for a batch and, batch after batch, database time: without a bound, one
 * key's hundred parallel downloads (or a hundred clients that never read) took the connections
 * that every other key's lookups need. A stream past a bound waits, in arrival order, about
 * `placeWaitMs` for a place to be given back, and is then answered 429 with Retry-After; nothing
 * is read or sent before it has its place. The wait costs nothing but a socket; answering at once
 * cost a whole request's work (about 0.8 ms of PGlite's one thread) every time, and careless
 * clients that ask again at once were refused hundreds of times a second, which took that much
 * from every other key's lookups (`npm run bench -- --only slow_streams`, docs/decisions.md). Not
 * counted: paged searches, whose size `limit` bounds, and lookups (see `isLookup` in the domain's
 * person filter). The streams of the process are counted by `activity`, to which the container's
 * database lane listens; so are those waiting, which are not waiting for the database.
 */
export class StreamLimits {
  readonly stallTimeoutMs: number;
  private readonly placeWaitMs: number;
  private readonly byKey = new Map<number, number>();
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly options: StreamLimitsOptions,
    private readonly activity: RequestActivity,
  ) {
    this.stallTimeoutMs = options.stallTimeoutMs ?? STALL_TIMEOUT_MS;
    this.placeWaitMs = options.placeWaitMs ?? PLACE_WAIT_MS;
  }

  /**
   * Takes a place for one stream of the key, waiting for one if need be; throws a 429 when none
   * came within the wait. Answers the function that gives the place back, or null, holding no
   * place, when the client left while it waited.
   */
  async enter(keyId: number, client: StreamClient): Promise<(() => void) | null> {
    if (client.destroyed) return null;
    // No waiter fits a place (each place given back goes to the first that fits), so a newcomer
    // that fits takes it without passing anyone who could have had it.
    if (this.fits(keyId)) return this.take(keyId);
    if (this.waitingOf(keyId) >= WAITING_PER_KEY) throw this.refusal(keyId);
    return new Promise((resolve, reject) => {
      const waited = this.activity.streamWaiting();
      const leaveLine = () => {
        clearTimeout(timer);
        client.off('close', gone);
        waited();
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
      };
      const waiter: Waiter = {
        keyId,
        admit: () => {
          leaveLine();
          resolve(this.take(keyId));
        },
      };
      const gone = () => {
        leaveLine();
        resolve(null);
      };
      const refuse = () => {
        leaveLine();
        reject(this.refusal(keyId));
      };
      const timer = setTimeout(refuse, this.placeWaitMs * (0.5 + Math.random()));
      client.once('close', gone);
      this.waiting.push(waiter);
    });
  }

  /** Streams of the key waiting for a place (for tests). */
  waitingOf(keyId: number): number {
    return this.waiting.reduce((count, waiter) => count + (waiter.keyId === keyId ? 1 : 0), 0);
  }

  private fits(keyId: number): boolean {
    return (
      (this.byKey.get(keyId) ?? 0) < this.options.perKey && this.activity.streams < this.options.perInstance
    );
  }

  private take(keyId: number): () => void {
    this.byKey.set(keyId, (this.byKey.get(keyId) ?? 0) + 1);
    const ended = this.activity.streamStarted();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      ended();
      const remaining = (this.byKey.get(keyId) ?? 1) - 1;
      if (remaining === 0) this.byKey.delete(keyId);
      else this.byKey.set(keyId, remaining);
      this.handOn();
    };
  }

  /** Gives the places free now to the first waiters that fit them, in arrival order. */
  private handOn(): void {
    for (let i = 0; i < this.waiting.length && this.activity.streams < this.options.perInstance; ) {
      const waiter = this.waiting[i];
      // Admitting takes it out of the line: the next one is then at the same index.
      if (this.fits(waiter.keyId)) waiter.admit();
      else i += 1;
    }
  }

  private refusal(keyId: number): HttpError {
    return (this.byKey.get(keyId) ?? 0) >= this.options.perKey
      ? tooMany(`at most ${this.options.perKey} unpaged searches run at once for one key`)
      : tooMany(`at most ${this.options.perInstance} unpaged searches run at once on this server`);
  }
}

function tooMany(reason: string): HttpError {
  return new HttpError(
    429,
    `${reason}; retry after ${RETRY_AFTER_SECONDS} s, or ask for pages with limit and after`,
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}
