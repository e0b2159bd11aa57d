import type { Response } from 'express';
import { HttpError } from './http-error';

export interface KeyTurnsOptions {
  /** Requests of one key served at once. */
  perKey: number;
  /** Requests of one key waiting for a turn; past that, 429. */
  waitingPerKey: number;
}

interface KeyState {
  serving: number;
  waiting: { hand: () => void }[];
}

/** A queue that is full empties quickly: a turn is one request. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Fair sharing between keys (SPEC §4): each key's requests are served a few at a time, the rest of
 * them queued in arrival order, so that however many requests one key sends at once (16 loops of
 * pages of 1000, say), another key's lookup waits behind at most `perKey` of them, never behind the
 * whole burst. The bound is per key, never per instance: a busy key slows itself, not the others.
 * A turn lasts until the answer is sent, or until the route gives it back (an unpaged stream, which
 * has its own limits, gives its turn back once it starts).
 */
export class KeyTurns {
  private readonly keys = new Map<number, KeyState>();

  constructor(private readonly options: KeyTurnsOptions) {}

  /** Waits for a turn of the key; resolves false, holding no turn, when the client left meanwhile. */
  async take(keyId: number, res: Response): Promise<boolean> {
    let state = this.keys.get(keyId);
    if (state === undefined) {
      state = { serving: 0, waiting: [] };
      this.keys.set(keyId, state);
    }
    if (state.serving < this.options.perKey) state.serving += 1;
    else {
      if (state.waiting.length >= this.options.waitingPerKey) {
        throw new HttpError(
          429,
          `at most ${this.options.perKey + this.options.waitingPerKey} requests of one key are taken at once; retry after ${RETRY_AFTER_SECONDS} s`,
          { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        );
      }
      const queue = state.waiting;
      // The turn is handed over by the request that ends, so a newcomer cannot take it first. A
      // client that leaves while it waits leaves the queue.
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

  private giveBack(keyId: number): void {
    const state = this.keys.get(keyId);
    if (state === undefined) return;
    const next = state.waiting.shift();
    if (next !== undefined) {
      next.hand();
      return;
    }
    state.serving -= 1;
    if (state.serving === 0) this.keys.delete(keyId);
  }
}

/** Ends the request's turn before its answer is over: for a long stream with limits of its own. */
export function giveBackTurn(res: Response): void {
  (res.locals.giveBackTurn as (() => void) | undefined)?.();
}
