import type { Response } from 'express';
import { HEAVY_REST_RATIO, type RequestActivity } from '../request-activity';
import { HttpError } from './http-error';

export interface KeyTurnsOptions {
  /** Requests of one key served at once while other keys are about. */
  perKey: number;
  /** Requests of one key served at once while no other key is about. */
  alone: number;
  /** Requests of one key waiting for a turn; past that, 429. */
  waitingPerKey: number;
  /**
   * Heavy requests (a page of many rows) of one key served at once while other keys are about:
   * each holds the database for many times a lookup's work, so fewer of them run (SPEC §4).
   * Default 1: on two cores, one heavy request of a key leaves the other to everyone else.
   */
  heavyPerKey?: number;
  /**
   * While other keys are about, a key's heavy turn is handed on only after a rest this many times
   * as long as the heavy request that gave it back took: the key's pages then take at most
   * 1 / (1 + ratio) of the time, and the rest of the machine (two cores shared by the service,
   * the database and their clients) is left to the others. Default HEAVY_REST_RATIO; 0: no rest.
   */
  heavyRestRatio?: number;
  /**
   * The longest rest, however long the heavy request took: a page held open by a client that
   * reads slowly costs the machine nothing meanwhile, and the key's other requests wait behind
   * its heavy ones. Default 500 ms (a page of 1000 takes 20–60 ms to serve).
   */
  heavyRestMaxMs?: number;
  /** How long after its last request a key still counts as about; tests shorten it. */
  recentMs?: number;
}

interface Waiter {
  hand: () => void;
}

interface KeyState {
  serving: number;
  waiting: Waiter[];
  /** Of those served, the heavy ones, and those that wait to become heavy (holding their turn). */
  heavy: number;
  waitingHeavy: Waiter[];
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

  constructor(
    private readonly options: KeyTurnsOptions,
    /** Told of each heavy request served while other keys are about. */
    private readonly activity?: RequestActivity,
  ) {
    this.recentMs = options.recentMs ?? RECENT_MS;
  }

  /** Waits for a turn of the key; resolves false, holding no turn, when the client left meanwhile. */
  async take(keyId: number, res: Response): Promise<boolean> {
    const now = performance.now();
    let state = this.keys.get(keyId);
    if (state === undefined) {
      state = { serving: 0, waiting: [], heavy: 0, waitingHeavy: [], lastSeen: now };
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
      // The turn is handed over by a request of the key that ends, so a newcomer cannot take it
      // first. A client that leaves while it waits leaves the queue.
      const handed = await waitInLine(state.waiting, res);
      if (!handed) return false;
    }
    const giveBack = holdUntilClose(res, () => this.giveBack(keyId));
    if (giveBack === null) return false;
    res.locals.giveBackTurn = giveBack;
    res.locals.takeHeavyTurn = () => this.takeHeavy(keyId, res);
    return true;
  }

  /**
   * For a request that holds its key's turn and is about to read a page of many rows: waits until
   * fewer than `heavyPerKey` of the key's heavy requests run (any number while no other key is
   * about). The request keeps its turn meanwhile: the key's other requests wait behind it, as
   * they would behind any of its requests. Resolves false when the client left meanwhile.
   */
  private async takeHeavy(keyId: number, res: Response): Promise<boolean> {
    const state = this.keys.get(keyId);
    if (state === undefined) return false;
    if (state.waitingHeavy.length === 0 && state.heavy < this.heavyLimitOf(keyId, performance.now())) {
      state.heavy += 1;
    } else if (!(await waitInLine(state.waitingHeavy, res))) return false;
    const since = performance.now();
    const shared = this.othersAbout(keyId, since) ? this.activity?.sharedPageStarted() : undefined;
    const release = () => {
      shared?.();
      this.giveBackHeavy(state, keyId, performance.now() - since);
    };
    return holdUntilClose(res, release) !== null;
  }

  /** Requests of the key served now (for tests and metrics). */
  serving(keyId: number): number {
    return this.keys.get(keyId)?.serving ?? 0;
  }

  /** `perKey` while another key has requests in flight, waiting, or had one a moment ago. */
  private limitOf(keyId: number, now: number): number {
    return this.othersAbout(keyId, now) ? this.options.perKey : this.options.alone;
  }

  private heavyLimitOf(keyId: number, now: number): number {
    return this.othersAbout(keyId, now) ? (this.options.heavyPerKey ?? 1) : this.options.alone;
  }

  private othersAbout(keyId: number, now: number): boolean {
    for (const [other, state] of this.keys) {
      if (other === keyId) continue;
      if (state.serving > 0 || state.waiting.length > 0 || now - state.lastSeen < this.recentMs) return true;
    }
    return false;
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

  /**
   * A heavy request of the key is over after `heldMs`: while others are about and more of the
   * key's heavy requests wait, its place is handed on after a rest (heavyRestRatio).
   */
  private giveBackHeavy(state: KeyState, keyId: number, heldMs: number): void {
    const restMs = Math.min(
      heldMs * (this.options.heavyRestRatio ?? HEAVY_REST_RATIO),
      this.options.heavyRestMaxMs ?? HEAVY_REST_MAX_MS,
    );
    if (restMs > 0 && state.waitingHeavy.length > 0 && this.othersAbout(keyId, performance.now())) {
      // Whoever waits keeps the process up; the rest itself need not.
      setTimeout(() => this.handOnHeavy(state, keyId), restMs).unref();
    } else this.handOnHeavy(state, keyId);
  }

  private handOnHeavy(state: KeyState, keyId: number): void {
    state.heavy -= 1;
    const limit = this.heavyLimitOf(keyId, performance.now());
    while (state.waitingHeavy.length > 0 && state.heavy < limit) {
      state.heavy += 1;
      state.waitingHeavy.shift()?.hand();
    }
  }

  /** Keys with nothing in flight or waiting, not seen for a while: the map stays small. */
  private forgetIdle(now: number): void {
    for (const [keyId, state] of this.keys) {
      if (state.serving === 0 && state.waiting.length === 0 && now - state.lastSeen >= this.recentMs)
        this.keys.delete(keyId);
    }
  }
}

/**
 * Holds a place until the answer closes, then `release`s it, once. Null, the place given back at
 * once, when the client has gone already.
 */
function holdUntilClose(res: Response, release: () => void): (() => void) | null {
  let held = true;
  const giveBack = () => {
    if (!held) return;
    held = false;
    release();
  };
  if (res.destroyed) {
    giveBack();
    return null;
  }
  res.once('close', giveBack);
  return giveBack;
}

/** Waits in `queue` until handed a place (true) or until the client leaves (false, out of the queue). */
function waitInLine(queue: Waiter[], res: Response): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const waiter = { hand: () => resolve(true) };
    queue.push(waiter);
    res.once('close', () => {
      const at = queue.indexOf(waiter);
      if (at === -1) return;
      queue.splice(at, 1);
      resolve(false);
    });
  });
}

/** See KeyTurnsOptions.heavyRestMaxMs. */
const HEAVY_REST_MAX_MS = 500;

/** A page of more rows than this is a heavy request (see KeyTurnsOptions.heavyPerKey). */
const HEAVY_PAGE_ROWS = 100;

/** Whether a page of `limit` rows (not a lookup's) is heavy. */
export function isHeavyPage(limit: number | undefined): boolean {
  return limit !== undefined && limit > HEAVY_PAGE_ROWS;
}

/**
 * For a route whose guard left the key's turn to it (BearerGuardOptions): waits for the turn.
 * False when the client left meanwhile (nothing to answer). A request served without KeyTurns, or
 * whose guard took the turn already, goes on at once.
 */
export async function takeTurn(res: Response): Promise<boolean> {
  const take = res.locals.takeTurn as (() => Promise<boolean>) | undefined;
  res.locals.takeTurn = undefined;
  return take === undefined ? true : take();
}

/**
 * Before a page of many rows (SPEC §4, fair sharing): waits for the key's heavy turn. False when
 * the client left meanwhile (nothing to answer). A request served without KeyTurns goes on at once.
 */
export async function takeHeavyTurn(res: Response): Promise<boolean> {
  const take = res.locals.takeHeavyTurn as (() => Promise<boolean>) | undefined;
  return take === undefined ? true : take();
}

/** Ends the request's turn before its answer is over: for a long stream with limits of its own. */
export function giveBackTurn(res: Response): void {
  (res.locals.giveBackTurn as (() => void) | undefined)?.();
}
