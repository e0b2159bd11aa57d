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

describe('KeyTurns', () => {
  it("serves a key's requests two at a time, the rest in arrival order, without holding up another key", async () => {
    const turns = new KeyTurns({ perKey: 2, waitingPerKey: 10 });
    const started: string[] = [];
    const a = Array.from({ length: 5 }, response);
    a.forEach((res, i) => void turns.take(1, res).then(() => started.push(`a${i}`)));
    const b = response();
    void turns.take(2, b).then(() => started.push('b'));
    await tick();
    expect(started).toEqual(['a0', 'a1', 'b']);
    a[1].finish();
    await tick();
    expect(started).toEqual(['a0', 'a1', 'b', 'a2']);
    a[0].finish();
    a[2].finish();
    await tick();
    expect(started).toEqual(['a0', 'a1', 'b', 'a2', 'a3', 'a4']);
    expect(turns.serving(1)).toBe(2);
    a[3].finish();
    a[4].finish();
    b.finish();
    expect(turns.serving(1)).toBe(0);
    expect(turns.serving(2)).toBe(0);
  });

  it('answers 429 with Retry-After when a key already has as many requests waiting as allowed', async () => {
    const turns = new KeyTurns({ perKey: 1, waitingPerKey: 2 });
    for (let i = 0; i < 3; i++) void turns.take(1, response());
    const refused = turns.take(1, response());
    await expect(refused).rejects.toBeInstanceOf(HttpError);
    await expect(refused).rejects.toMatchObject({ status: 429, headers: { 'Retry-After': '1' } });
    // Another key is not affected.
    await expect(turns.take(2, response())).resolves.toBe(true);
  });

  it('skips a client that left while it waited, and gives a turn back once only', async () => {
    const turns = new KeyTurns({ perKey: 1, waitingPerKey: 5 });
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
