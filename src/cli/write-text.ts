import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Writes and, when the stream's buffer is full, waits for it to drain: memory stays bounded. */
export async function writeText(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

export function printLine(stream: Writable, text = ''): void {
  stream.write(`${text}\n`);
}
