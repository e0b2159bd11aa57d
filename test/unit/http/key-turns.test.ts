import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { HttpError } from '../../../src/http/http-error';
import { giveBackTurn, isHeavyPage, KeyTurns, takeHeavyTurn, takeTurn } from '../../../src/http/key-turns';
import { RequestActivity } from '../../../src/request-activity';

/** The part of a response KeyTurns uses: close, locals, and whether the client is gone. */
function response(): Response & { finish(): void; leave(): void } {
  const emitter = new EventEmitter() as EventEmitter & {
    locals: Record<string, unknown>;
    destroyed: boolean;
  };
  emitter.locals = {};
  emitter.destroyed = false;
  return Object.assign(emitter, {
    finish: () => emitter.emit('close'),
    leave: () => {
      emitter.destroyed = true;
      emitter.emit('close');
    },
  }) as unknown as Response & { finish(): void; leave(): void };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyTurns', () => {
  it("serves a key's requests two at a time while another key is about, the rest in arrival order", async () => {
    const turns = new KeyTurns({ perKey: 2, alone: 64, waitingPerKey: 10 });
    const started: string[] = [];
    const b = response();
    void turns.take(2, b).then(() => started.push('b'));
    const a = Array.from({ length: 5 }, response);
    a.forEach((res, i) => void turns.take(1, res).then(() => started.push(`a${i}`)));
    await tick();
    expect(started).toEqual(['b', 'a0', 'a1']);
    a[1].finish();
    await tick();
    expect(started).toEqual(['b', 'a0', 'a1', 'a2']);
    expect(turns.serving(1)).toBe(2);
    // One at a time: a request handed a turn listens for its end once it has it.
    for (const res of [a[0], a[2], a[3], a[4], b]) {
      res.finish();
      await tick();
    }
    expect(turns.serving(1)).toBe(0);
  });

  it('serves a key alone many at a time: one client with many connections keeps the whole service', async () => {
    const turns = new KeyTurns({ perKey: 2, alone: 64, waitingPerKey: 10, recentMs: 50 });
    const a = Array.from({ length: 20 }, response);
    const taken = await Promise.all(a.map((res) => turns.take(1, res)));
    expect(taken).toEqual(Array(20).fill(true));
    expect(turns.serving(1)).toBe(20);
  });

  it("holds a key that came first to two at a time as soon as another key's request arrives", async () => {
    const turns = new KeyTurns({ perKey: 2, alone: 64, waitingPerKey: 50, recentMs: 50 });
    const a = Array.from({ length: 4 }, response);
    for (const res of a) await turns.take(1, res);
    const b = response();
    await turns.take(2, b);
    // The key's next request waits although only four of its 64 run: another key is about.
    let late = false;
    void turns.take(1, response()).then(() => {
      late = true;
    });
    for (const res of a.slice(0, 2)) res.finish();
    await tick();
    expect(late).toBe(false);
    a[2].finish();
    await tick();
    expect(late).toBe(true);
    // Once the other key has gone quiet, the key is alone again.
    b.finish();
    await pause(80);
    const more = Array.from({ length: 5 }, response);
    await Promise.all(more.map((res) => turns.take(1, res)));
    expect(turns.serving(1)).toBe(7);
  });

  it('answers 429 with Retry-After when a key already has as many requests waiting as allowed', async () => {
    const turns = new KeyTurns({ perKey: 1, alone: 1, waitingPerKey: 2 });
    for (let i = 0; i < 3; i++) void turns.take(1, response());
    const refused = turns.take(1, response());
    await expect(refused).rejects.toBeInstanceOf(HttpError);
    await expect(refused).rejects.toMatchObject({ status: 429, headers: { 'Retry-After': '1' } });
    // Another key is not affected.
    await expect(turns.take(2, response())).resolves.toBe(true);
  });

  it('skips a client that left while it waited, and gives a turn back once only', async () => {
    const turns = new KeyTurns({ perKey: 1, alone: 1, waitingPerKey: 5 });
    const first = response();
    await turns.take(1, first);
    const gone = response();
    const goneTurn = turns.take(1, gone);
    const next = response();
    const nextTurn = turns.take(1, next);
    gone.leave();
    giveBackTurn(first);
    first.finish();
    await expect(goneTurn).resolves.toBe(false);
    await expect(nextTurn).resolves.toBe(true);
    expect(turns.serving(1)).toBe(1);
    next.finish();
    expect(turns.serving(1)).toBe(0);
  });

  describe('heavy requests (pages of many rows)', () => {
    it('counts a page of more than 100 rows as heavy', () => {
      expect([undefined, 1, 100, 101, 1000].map(isHeavyPage)).toEqual([false, false, false, true, true]);
    });

    it("serves one heavy request of a key at a time while another key is about, in arrival order, the key's light ones beside it", async () => {
      const turns = new KeyTurns({ perKey: 3, alone: 64, waitingPerKey: 10, heavyRestRatio: 0 });
      await turns.take(2, response());
      const pages = [response(), response()];
      for (const res of pages) await turns.take(1, res);
      const started: string[] = [];
      pages.forEach((res, i) => void takeHeavyTurn(res).then((taken) => taken && started.push(`page${i}`)));
      await tick();
      expect(started).toEqual(['page0']);
      // A light request of the same key still has a turn (perKey 3).
      await expect(turns.take(1, response())).resolves.toBe(true);
      pages[0].finish();
      await tick();
      expect(started).toEqual(['page0', 'page1']);
    });

    it('hands the heavy turn on after a rest twice as long as the page took while another key is about, telling the activity', async () => {
      const activity = new RequestActivity();
      const turns = new KeyTurns({ perKey: 3, alone: 64, waitingPerKey: 10 }, activity);
      await turns.take(2, response());
      const [first, second] = [response(), response()];
      for (const res of [first, second]) await turns.take(1, res);
      await expect(takeHeavyTurn(first)).resolves.toBe(true);
      expect(activity.sharedPages).toBe(1);
      let started = false;
      const secondHeavy = takeHeavyTurn(second).then((taken) => {
        started = taken;
        return performance.now();
      });
      await pause(40);
      const finished = performance.now();
      first.finish();
      expect(activity.sharedPages).toBe(0);
      // Held 40 ms: a rest of at least 80 before the next page of the key.
      await pause(40);
      expect(started).toBe(false);
      expect((await secondHeavy) - finished).toBeGreaterThanOrEqual(75);
      expect(activity.sharedPages).toBe(1);
    });

    it('rests no longer than heavyRestMaxMs, however long the page was held (a client reading slowly)', async () => {
      const turns = new KeyTurns({ perKey: 3, alone: 64, waitingPerKey: 10, heavyRestMaxMs: 30 });
      await turns.take(2, response());
      const [first, second] = [response(), response()];
      for (const res of [first, second]) await turns.take(1, res);
      await takeHeavyTurn(first);
      const secondHeavy = takeHeavyTurn(second).then(() => performance.now());
      await pause(100);
      const finished = performance.now();
      first.finish();
      // Held 100 ms: a rest of 200 but for the cap.
      const rested = (await secondHeavy) - finished;
      expect(rested).toBeGreaterThanOrEqual(25);
      expect(rested).toBeLessThan(150);
    });

    it('hands the heavy turn on at once when the other key has gone quiet meanwhile', async () => {
      const activity = new RequestActivity();
      const turns = new KeyTurns({ perKey: 3, alone: 64, waitingPerKey: 10, recentMs: 20 }, activity);
      const other = response();
      await turns.take(2, other);
      const [first, second] = [response(), response()];
      for (const res of [first, second]) await turns.take(1, res);
      await takeHeavyTurn(first);
      let started = false;
      void takeHeavyTurn(second).then((taken) => {
        started = taken;
      });
      other.finish();
      await pause(40);
      first.finish();
      await tick();
      expect(started).toBe(true);
      // Alone, its page is no shared one: PGlite reads it in large parts.
      expect(activity.sharedPages).toBe(0);
    });

    it('serves a key alone many heavy requests at once', async () => {
      const turns = new KeyTurns({ perKey: 2, alone: 64, waitingPerKey: 10, recentMs: 50 });
      const pages = Array.from({ length: 8 }, response);
      for (const res of pages) await turns.take(1, res);
      await expect(Promise.all(pages.map(takeHeavyTurn))).resolves.toEqual(Array(8).fill(true));
    });

    it('skips a client that left while it waited for the heavy turn, and hands that turn on once', async () => {
      const turns = new KeyTurns({ perKey: 4, alone: 64, waitingPerKey: 10, heavyPerKey: 1 });
      await turns.take(2, response());
      const [first, gone, next, last] = Array.from({ length: 4 }, response);
      for (const res of [first, gone, next, last]) await turns.take(1, res);
      await expect(takeHeavyTurn(first)).resolves.toBe(true);
      const goneHeavy = takeHeavyTurn(gone);
      const nextHeavy = takeHeavyTurn(next);
      const lastHeavy = takeHeavyTurn(last);
      gone.leave();
      await expect(goneHeavy).resolves.toBe(false);
      first.finish();
      await expect(nextHeavy).resolves.toBe(true);
      let lastStarted = false;
      void lastHeavy.then(() => {
        lastStarted = true;
      });
      await tick();
      expect(lastStarted).toBe(false);
      next.finish();
      await expect(lastHeavy).resolves.toBe(true);
    });

    it('lets a request served without turns (no key) go on at once', async () => {
      await expect(takeHeavyTurn(response())).resolves.toBe(true);
    });
  });

  describe('a turn the route takes itself', () => {
    it("takes the key's turn once, however often asked, and holds it until the answer closes", async () => {
      const turns = new KeyTurns({ perKey: 1, alone: 1, waitingPerKey: 10 });
      const first = response();
      first.locals.takeTurn = () => turns.take(1, first);
      await expect(takeTurn(first)).resolves.toBe(true);
      await expect(takeTurn(first)).resolves.toBe(true);
      expect(turns.serving(1)).toBe(1);
      first.finish();
      expect(turns.serving(1)).toBe(0);
    });

    it('lets a request whose guard left it no turn to take (or took it) go on at once', async () => {
      await expect(takeTurn(response())).resolves.toBe(true);
    });
  });
});
