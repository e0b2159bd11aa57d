import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { HttpError } from '../../../src/http/http-error';
import { giveBackTurn, KeyTurns } from '../../../src/http/key-turns';

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
});
