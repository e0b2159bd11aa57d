import { EventEmitter } from 'node:events';
import { HttpError } from '../../../src/http/http-error';
import { PLACE_WAIT_MS, StreamLimits, type StreamLimitsOptions } from '../../../src/http/stream-limits';
import { RequestActivity } from '../../../src/request-activity';

/** A request's answer, as far as waiting for a place goes: it closes when its client leaves. */
class Client extends EventEmitter {
  destroyed = false;

  leave(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

const limitsOf = (options: StreamLimitsOptions, activity = new RequestActivity()) =>
  new StreamLimits({ placeWaitMs: 20, ...options }, activity);

/** A place taken: fails the test if none was given. */
async function place(limits: StreamLimits, keyId: number, client = new Client()): Promise<() => void> {
  const leave = await limits.enter(keyId, client);
  if (leave === null) throw new Error('expected a place');
  return leave;
}

async function refusal(entering: Promise<unknown>): Promise<HttpError> {
  const error = await entering.then(
    () => new Error('expected a refusal'),
    (refused: unknown) => refused,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

/** Whether the promise has settled after the microtasks queued so far and one macrotask. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('StreamLimits', () => {
  it('lets one key run its number of streams, and refuses the next with 429 and Retry-After once it has waited', async () => {
    const limits = limitsOf({ perKey: 2, perInstance: 10, placeWaitMs: 100 });
    await place(limits, 1);
    await place(limits, 1);

    const started = performance.now();
    const refused = await refusal(limits.enter(1, new Client()));
    // Half to one and a half times the wait, at random.
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(refused.status).toBe(429);
    expect(refused.headers).toEqual({ 'Retry-After': '5' });
    expect(refused.messages[0]).toMatch(
      /^at most 2 unpaged searches run at once for one key; retry after 5 s/,
    );
    expect(limits.waitingOf(1)).toBe(0);
    await expect(limits.enter(2, new Client())).resolves.toEqual(expect.any(Function));
  });

  it('refuses every key once the process runs its number of streams', async () => {
    const limits = limitsOf({ perKey: 2, perInstance: 3 });
    await place(limits, 1);
    await place(limits, 1);
    await place(limits, 2);
    expect((await refusal(limits.enter(3, new Client()))).messages[0]).toMatch(
      /^at most 3 unpaged searches run at once on this server/,
    );
  });

  it('waits half a second to a second and a half by default, at random: those refused together come back spread out', async () => {
    jest.useFakeTimers();
    try {
      const limits = new StreamLimits({ perKey: 1, perInstance: 10 }, new RequestActivity());
      await place(limits, 1);
      let refused = 0;
      const waiting = Array.from({ length: 20 }, () =>
        limits.enter(1, new Client()).catch((error: unknown) => {
          expect((error as HttpError).status).toBe(429);
          refused += 1;
        }),
      );
      await jest.advanceTimersByTimeAsync(PLACE_WAIT_MS / 2 - 1);
      expect(refused).toBe(0);
      // Each side of the mean holds some of twenty, but for a chance of two in a million.
      await jest.advanceTimersByTimeAsync(PLACE_WAIT_MS / 2);
      expect(refused).toBeGreaterThan(0);
      expect(refused).toBeLessThan(20);
      await jest.advanceTimersByTimeAsync(PLACE_WAIT_MS / 2 + 1);
      expect(refused).toBe(20);
      await Promise.all(waiting);
      expect(PLACE_WAIT_MS).toBe(1000);
    } finally {
      jest.useRealTimers();
    }
  });

  it('hands a place given back to the stream of the key that waits for it, in arrival order', async () => {
    const activity = new RequestActivity();
    const limits = limitsOf({ perKey: 1, perInstance: 10, placeWaitMs: 5000 }, activity);
    const leave = await place(limits, 1);
    const first = limits.enter(1, new Client());
    const second = limits.enter(1, new Client());
    expect(limits.waitingOf(1)).toBe(2);
    expect(activity.streamsWaiting).toBe(2);
    expect(await settled(first)).toBe(false);

    leave();
    const handed = await first;
    expect(handed).toEqual(expect.any(Function));
    expect(activity.streams).toBe(1);
    expect(limits.waitingOf(1)).toBe(1);
    expect(await settled(second)).toBe(false);

    handed?.();
    const next = await second;
    expect(next).toEqual(expect.any(Function));
    expect(activity.streamsWaiting).toBe(0);
    next?.();
    expect(activity.streams).toBe(0);
  });

  it('gives a place of the instance to the first waiter whose key is under its own bound', async () => {
    const limits = limitsOf({ perKey: 1, perInstance: 2, placeWaitMs: 5000 });
    await place(limits, 1);
    const leaveOther = await place(limits, 2);
    // Key 1 is at its own bound as well: the place key 2 gives back cannot be its.
    const client = new Client();
    const ofKey1 = limits.enter(1, client);
    const ofKey3 = limits.enter(3, new Client());

    leaveOther();
    expect(await ofKey3).toEqual(expect.any(Function));
    expect(await settled(ofKey1)).toBe(false);
    expect(limits.waitingOf(1)).toBe(1);
    client.leave();
    expect(await ofKey1).toBeNull();
  });

  it('lets a client that leaves while it waits out of the line, holding no place', async () => {
    const activity = new RequestActivity();
    const limits = limitsOf({ perKey: 1, perInstance: 10, placeWaitMs: 5000 }, activity);
    const leave = await place(limits, 1);
    const client = new Client();
    const waiting = limits.enter(1, client);
    const behind = limits.enter(1, new Client());
    client.leave();
    expect(await waiting).toBeNull();
    expect(limits.waitingOf(1)).toBe(1);

    // The place goes to the one behind it.
    leave();
    expect(await behind).toEqual(expect.any(Function));
    expect(activity.streams).toBe(1);
    expect(activity.streamsWaiting).toBe(0);
  });

  it('takes no place for a client that has left already', async () => {
    const activity = new RequestActivity();
    const limits = limitsOf({ perKey: 1, perInstance: 10 }, activity);
    const client = new Client();
    client.destroyed = true;
    expect(await limits.enter(1, client)).toBeNull();
    expect(activity.streams).toBe(0);
  });

  it('refuses at once past 256 streams of one key waiting', async () => {
    const limits = limitsOf({ perKey: 1, perInstance: 1000, placeWaitMs: 60_000 });
    await place(limits, 1);
    const clients = Array.from({ length: 256 }, () => new Client());
    const waiting = clients.map((client) => limits.enter(1, client));
    expect(limits.waitingOf(1)).toBe(256);

    const beyond = limits.enter(1, new Client());
    expect(await settled(beyond)).toBe(true);
    expect((await refusal(beyond)).status).toBe(429);
    // Another key still waits.
    const other = new Client();
    expect(await limits.enter(2, other)).toEqual(expect.any(Function));

    for (const client of clients) client.leave();
    expect(await Promise.all(waiting)).toEqual(clients.map(() => null));
  });

  it('gives the place back once, however often it is given back', async () => {
    const limits = limitsOf({ perKey: 1, perInstance: 2 });
    const leave = await place(limits, 1);
    leave();
    leave();
    const again = await place(limits, 1);
    await place(limits, 2);
    await refusal(limits.enter(3, new Client()));
    again();
    await expect(limits.enter(3, new Client())).resolves.toEqual(expect.any(Function));
  });

  it('counts its streams in the process activity, until each is given back', async () => {
    const activity = new RequestActivity();
    const limits = limitsOf({ perKey: 2, perInstance: 10 }, activity);
    const leave = await place(limits, 1);
    await place(limits, 2);
    expect(activity.streams).toBe(2);
    leave();
    leave();
    expect(activity.streams).toBe(1);
  });

  it('cuts off a client that stops reading after 30 s unless told otherwise', () => {
    expect(limitsOf({ perKey: 1, perInstance: 1 }).stallTimeoutMs).toBe(30_000);
    expect(limitsOf({ perKey: 1, perInstance: 1, stallTimeoutMs: 50 }).stallTimeoutMs).toBe(50);
  });
});
