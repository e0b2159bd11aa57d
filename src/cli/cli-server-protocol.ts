import { isAbsolute } from 'node:path';

/**
 * How the command-line tool hands a command to the running service over its local socket:
 * newline-delimited JSON. The tool sends one ForwardedCommand; the service answers with output
 * frames, in the order the command wrote them, and ends with { exit }.
 */
export interface ForwardedCommand {
  argv: string[];
  /** The tool's working directory: FILE arguments are relative to it. */
  cwd: string;
  /** What the command reads from standard input (a password line), read where the tool runs. */
  stdin: string;
  /** Only the variable named by --password-env, resolved where the tool runs. */
  env: Record<string, string>;
}

export type OutputFrame = { stdout: string } | { stderr: string } | { exit: number };

export function encodeFrame(frame: ForwardedCommand | OutputFrame): string {
  return `${JSON.stringify(frame)}\n`;
}

export class LineTooLong extends Error {}

/** Cuts a byte stream into lines; a line longer than the limit is refused before it is all read. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** The lines this chunk completes, without their newline. Throws LineTooLong. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let rest = chunk;
    for (let end = rest.indexOf(0x0a); end >= 0; end = rest.indexOf(0x0a)) {
      this.add(rest.subarray(0, end));
      lines.push(Buffer.concat(this.parts).toString('utf8'));
      this.parts = [];
      this.size = 0;
      rest = rest.subarray(end + 1);
    }
    this.add(rest);
    return lines;
  }

  /** The unfinished last line, if any. */
  rest(): string {
    return Buffer.concat(this.parts).toString('utf8');
  }

  private add(part: Buffer): void {
    this.size += part.length;
    if (this.size > this.maxBytes) throw new LineTooLong(`a line is longer than ${this.maxBytes} bytes`);
    if (part.length > 0) this.parts.push(part);
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The request, or why it is not one. */
export function parseForwardedCommand(text: string): ForwardedCommand | { invalid: string } {
  let value: Partial<Record<keyof ForwardedCommand, unknown>>;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalid: 'the request is not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { invalid: 'the request is not an object' };
  const { argv, cwd, stdin = '', env = {} } = value;
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) {
    return { invalid: 'argv must be a list of strings' };
  }
  if (typeof cwd !== 'string' || !isAbsolute(cwd)) return { invalid: 'cwd must be an absolute path' };
  if (typeof stdin !== 'string') return { invalid: 'stdin must be a string' };
  if (
    typeof env !== 'object' ||
    env === null ||
    Array.isArray(env) ||
    !Object.entries(env).every(([name, v]) => ENV_NAME.test(name) && typeof v === 'string')
  ) {
    return { invalid: 'env must map variable names to strings' };
  }
  return { argv, cwd, stdin, env: env as Record<string, string> };
}

/** A frame from the service, or null when the line is not one. */
export function parseOutputFrame(text: string): OutputFrame | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  if (typeof value.stdout === 'string') return { stdout: value.stdout };
  if (typeof value.stderr === 'string') return { stderr: value.stderr };
  if (typeof value.exit === 'number' && Number.isInteger(value.exit)) return { exit: value.exit };
  return null;
}
