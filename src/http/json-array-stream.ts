import type { Response } from 'express';

/** Resolves when the socket can take more, or when it is gone; leaves no listener behind. */
function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes `items` as one JSON array without holding them all in memory: it waits for the socket
 * to drain when the client reads slowly, and stops reading (ending the store's iteration) when
 * the client goes away. The first item is fetched before the status line is sent, so that a
 * store failing at once still gets a proper error answer. A failure after that cannot be told in
 * a half-written array: the connection is cut instead, and the client sees an incomplete body.
 */
export async function streamJsonArray<T>(
  res: Response,
  items: AsyncIterable<T>,
  toJson: (item: T) => unknown,
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
    res.write('[');
    let first = true;
    while (!next.done && !gone) {
      const chunk = JSON.stringify(toJson(next.value));
      if (!res.write(first ? chunk : `,${chunk}`)) {
        await drainedOrClosed(res);
      }
      first = false;
      if (gone) break;
      next = await iterator.next();
    }
    if (gone) {
      await iterator.return?.();
      return;
    }
    res.end(']');
  } catch (error) {
    await iterator.return?.().catch(() => undefined);
    throw error;
  } finally {
    res.off('close', onClose);
  }
}
