import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Spool, Spools } from '../../application/ports/spool';

// Items are gathered into writes of about this size: few system calls for a large import.
const WRITE_CHARACTERS = 256 * 1024;

/**
 * Spools as files of JSON lines, one item a line (JSON.stringify escapes every line break), in a
 * directory of their own under the system's temporary directory: created 0700 by mkdtemp, the file
 * 0600 and exclusively, as it holds members' personal data; removed when the spool is closed.
 * Memory stays that of one write's worth of items, whatever the size of the import.
 */
export class FileSpools implements Spools {
  constructor(private readonly parent: string = tmpdir()) {}

  async open<T>(): Promise<Spool<T>> {
    const directory = await mkdtemp(join(this.parent, 'membership-import-'));
    const path = join(directory, 'records.jsonl');
    try {
      const handle = await open(path, 'wx', 0o600);
      let pending: string[] = [];
      let pendingLength = 0;
      let closed = false;
      const flush = async () => {
        if (pending.length === 0) return;
        const text = pending.join('');
        pending = [];
        pendingLength = 0;
        await handle.write(text);
      };
      return {
        add: async (item) => {
          const line = `${JSON.stringify(item)}\n`;
          pending.push(line);
          pendingLength += line.length;
          if (pendingLength >= WRITE_CHARACTERS) await flush();
        },
        read: async function* () {
          await flush();
          let carried = '';
          for await (const chunk of createReadStream(path, {
            encoding: 'utf8',
            highWaterMark: 1024 * 1024,
          })) {
            const text = carried + (chunk as string);
            let start = 0;
            for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
              yield JSON.parse(text.slice(start, end)) as T;
              start = end + 1;
            }
            carried = text.slice(start);
          }
        },
        close: async () => {
          if (closed) return;
          closed = true;
          await handle.close().catch(() => undefined);
          await rm(directory, { recursive: true, force: true });
        },
      };
    } catch (error) {
      await rm(directory, { recursive: true, force: true });
      throw error;
    }
  }
}
