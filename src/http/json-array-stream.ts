import type { Response } from 'express';

/**
 * Resolves when the socket can take more, or when it is gone; leaves no listener behind. A client
 * that takes nothing for `stallTimeoutMs` is cut off: it would hold its connection, its place
 * among the streams and a batch of memory for as long as it liked.
 */
function drainedOrClosed(res: Response, stallTimeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const stalled = setTimeout(() => res.destroy(), stallTimeoutMs);
    const done = () => {
      clearTimeout(stalled);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * The text around the array: the array itself, or an object that opens with it and whose other
 * fields (known once the items are read) follow it.
 */
export interface JsonAround {
  opening: string;
  closing(): string;
}

const BARE_ARRAY: JsonAround = { opening: '[', closing: () => ']' };

/** Items are written in chunks of about this many characters: fewer, larger writes than one per item. */
const CHUNK_CHARACTERS = 16 * 1024;

/** Lets requests waiting on the event loop (another key's lookup) run before the next chunk. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes `items` (each as `jsonOf` gives its JSON text) as one JSON array (or an object that
 * opens with it, `around`) without holding them all in memory: it waits for the socket to drain
 * when the client reads slowly, and stops reading (ending the store's iteration) when the client
 * goes away. An answer shorter than one chunk (a short list's) goes out in one write with its
 * length. Nothing is sent before the first chunk is ready, so that a store failing early still
 * gets a proper error answer. A failure after that cannot be told in a half-written array: the
 * connection is cut instead, and the client sees an incomplete body. So is a client that stops
 * reading for `stallTimeoutMs`. Between chunks the stream gives the event loop a turn:
 * serialising a whole batch at once would keep other requests waiting for tens of milliseconds.
 */
export async function streamJsonArray<T>(
  res: Response,
  items: AsyncIterable<T>,
  jsonOf: (item: T) => string,
  stallTimeoutMs: number,
  around: JsonAround = BARE_ARRAY,
): Promise<void> {
  const iterator = items[Symbol.asyncIterator]();
  let next = await iterator.next();

  let gone = false;
  const onClose = () => {
    gone = !res.writableFinished;
  };
  res.on('close', onClose);
  res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
  try {
    let chunk = around.opening;
    let first = true;
    let streaming = false;
    while (!next.done && !gone) {
      chunk += `${first ? '' : ','}${jsonOf(next.value)}`;
      first = false;
      if (chunk.length >= CHUNK_CHARACTERS) {
        streaming = true;
        if (res.write(chunk)) await nextTurn();
        else await drainedOrClosed(res, stallTimeoutMs);
        chunk = '';
      }
      if (gone) break;
      next = await iterator.next();
    }
    if (gone) {
      await iterator.return?.();
      return;
    }
    // Encoded once, as the routes' pages are: a string would be measured, then encoded again.
    const rest = Buffer.from(`${chunk}${around.closing()}`);
    // A short answer (a short list, a small page of changes) goes out whole, with its length, in
    // one write: chunked encoding would cost it extra writes for nothing.
    if (!streaming) res.setHeader('Content-Length', rest.length);
    res.end(rest);
  } catch (error) {
    await iterator.return?.().catch(() => undefined);
    throw error;
  } finally {
    res.off('close', onClose);
  }
}
