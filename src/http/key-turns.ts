import type { Response } from 'express';
import { HttpError } from './http-error';

export interface KeyTurnsOptions {
  /** Requests of one key served at once while other keys are about. */
  perKey: number;
  /** Requests of one key served at once while no other key is about. */
  alone: number;
  /** Requests of one key waiting for a turn; past that, 429. */
  waitingPerKey: number;
  /** How long after its last request a key still counts as about; tests shorten it. */
  recentMs?: number;
}

interface KeyState {
  serving: number;
  waiting: { hand: () => void }[];
  lastSeen: number;
}

/** A queue that is full empties quickly: a turn is one request. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Between two requests of a chat bot's few connections there may be no request of it in flight:
 * a key counts as about for this long after its last one, so that another key's burst is not let
 * in whole in that gap.
 */
const RECENT_MS = 1000;

/**
 * Fair sharing between keys (SPEC §4). While other keys are about, each key's requests are served
 * `perKey` at a time and the rest of them wait in that key's own queue, in arrival order: however
 * many requests one key sends at once (16 loops of pages of 1000, say), another key's lookup waits
 * behind at most `perKey` of them, never behind the whole burst. A key alone is served `alone` at
 * a time, so that a single client's many connections (the chat bot's) keep the whole service. The
 * bound is per key, never per instance: a busy key slows itself, not the others. A turn lasts until
 * the answer is sent, or until the route gives it back (an unpaged stream, which has its own
 * limits, gives its turn back once it starts).
 */
export class KeyTurns {
  private readonly keys = new Map<number, KeyState>();
  private readonly recentMs: number;

  constructor(private readonly options: KeyTurnsOptions) {
    this.recentMs = options.recentMs ?? RECENT_MS;
  }

  /** Waits for a turn of the key; resolves false, holding no turn, when the client left meanwhile. */
  async take(keyId: number, res: Response): Promise<boolean> {
    const now = performance.now();
    let state = this.keys.get(keyId);
    if (state === undefined) {
      state = { serving: 0, waiting: [], lastSeen: now };
      this.keys.set(keyId, state);
    }
    state.lastSeen = now;
    if (state.waiting.length === 0 && state.serving < this.limitOf(keyId, now)) state.serving += 1;
    else {
      if (state.waiting.length >= this.options.waitingPerKey) {
        throw new HttpError(
          429,
          `at most ${this.options.waitingPerKey} requests of one key wait for their turn; retry after ${RETRY_AFTER_SECONDS} s`,
          { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        );
      }
      const queue = state.waiting;
      // The turn is handed over by a request of the key that ends, so a newcomer cannot take it
      // first. A client that leaves while it waits leaves the queue.
      const handed = await new Promise<boolean>((resolve) => {
        const waiter = { hand: () => resolve(true) };
        queue.push(waiter);
        res.once('close', () => {
          const at = queue.indexOf(waiter);
          if (at === -1) return;
          queue.splice(at, 1);
          resolve(false);
        });
      });
      if (!handed) return false;
    }
    let held = true;
    const giveBack = () => {
      if (!held) return;
      held = false;
      this.giveBack(keyId);
    };
    res.locals.giveBackTurn = giveBack;
    if (res.destroyed) {
      giveBack();
      return false;
    }
    res.once('close', giveBack);
    return true;
  }

  /** Requests of the key served now (for tests and metrics). */
  serving(keyId: number): number {
    return this.keys.get(keyId)?.serving ?? 0;
  }

  /** `perKey` while another key has requests in flight, waiting, or had one a moment ago. */
  private limitOf(keyId: number, now: number): number {
    for (const [other, state] of this.keys) {
      if (other === keyId) continue;
      if (state.serving > 0 || state.waiting.length > 0 || now - state.lastSeen < this.recentMs)
        return this.options.perKey;
    }
    return this.options.alone;
  }

  private giveBack(keyId: number): void {
    const state = this.keys.get(keyId);
    if (state === undefined) return;
    const now = performance.now();
    state.serving -= 1;
    state.lastSeen = now;
    // Every waiting request of the key that fits under its limit now (more, if the others left).
    const limit = this.limitOf(keyId, now);
    while (state.waiting.length > 0 && state.serving < limit) {
      state.serving += 1;
      state.waiting.shift()?.hand();
    }
    this.forgetIdle(now);
  }

  /** Keys with nothing in flight or waiting, not seen for a while: the map stays small. */
  private forgetIdle(now: number): void {
    for (const [keyId, state] of this.keys) {
      if (state.serving === 0 && state.waiting.length === 0 && now - state.lastSeen >= this.recentMs)
        this.keys.delete(keyId);
    }
  }
}

/** Ends the request's turn before its answer is over: for a long stream with limits of its own. */
export function giveBackTurn(res: Response): void {
  (res.locals.giveBackTurn as (() => void) | undefined)?.();
}
