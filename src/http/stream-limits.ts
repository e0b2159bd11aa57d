import type { RequestActivity } from '../request-activity';
import { HttpError } from './http-error';

/** A client that has not taken any of a stream for this long is cut off (SPEC §4). */
export const STALL_TIMEOUT_MS = 30_000;

/** Streams usually end within seconds; a client told to come back sooner would only be refused again. */
const RETRY_AFTER_SECONDS = 5;

export interface StreamLimitsOptions {
  perKey: number;
  perInstance: number;
  /** How long a stream may wait for its client to read; tests shorten it. */
  stallTimeoutMs?: number;
}

/**
 * How many long unpaged searches run at once, per key and in this process. Each holds a client
 * connection, memory for a batch and, batch after batch, database time: without a bound, one
 * key's hundred parallel downloads (or a hundred clients that never read) took the connections
 * that every other key's lookups need. Past a bound the answer is 429 with Retry-After, before
 * anything is read or sent. Not counted: paged searches, whose size `limit` bounds, and lookups
 * (see `isLookup` in the domain's person filter). The streams of the process are counted by
 * `activity`, to which the container's database lane listens.
 */
export class StreamLimits {
  readonly stallTimeoutMs: number;
  private readonly byKey = new Map<number, number>();

  constructor(
    private readonly options: StreamLimitsOptions,
    private readonly activity: RequestActivity,
  ) {
    this.stallTimeoutMs = options.stallTimeoutMs ?? STALL_TIMEOUT_MS;
  }

  /** Takes a place for one stream of the key, or throws a 429; answers the function that gives it back. */
  enter(keyId: number): () => void {
    const ofKey = this.byKey.get(keyId) ?? 0;
    if (ofKey >= this.options.perKey) {
      throw tooMany(`at most ${this.options.perKey} unpaged searches run at once for one key`);
    }
    if (this.activity.streams >= this.options.perInstance) {
      throw tooMany(`at most ${this.options.perInstance} unpaged searches run at once on this server`);
    }
    this.byKey.set(keyId, ofKey + 1);
    const ended = this.activity.streamStarted();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      ended();
      const remaining = (this.byKey.get(keyId) ?? 1) - 1;
      if (remaining === 0) this.byKey.delete(keyId);
      else this.byKey.set(keyId, remaining);
    };
  }
}

function tooMany(reason: string): HttpError {
  return new HttpError(
    429,
    `${reason}; retry after ${RETRY_AFTER_SECONDS} s, or ask for pages with limit and after`,
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}
