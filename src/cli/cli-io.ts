import type { Readable, Writable } from 'node:stream';

/** A readable that may be a terminal, like process.stdin. */
export type CliInput = Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
/** A writable that may be a terminal, like process.stderr. */
export type CliOutput = Writable & { isTTY?: boolean; columns?: number };

/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  stdin: CliInput;
  stdout: CliOutput;
  stderr: CliOutput;
  env: Record<string, string | undefined>;
}
