/**
 * The little of PostgreSQL's wire protocol (version 3) that the embedded database's gate needs:
 * cutting what a client sends into whole messages, and following PGlite's answers far enough to
 * know when the session is idle again. Everything else is PGlite's own business.
 */

const PROTOCOL_3 = 196_608;
const SSL_REQUEST = 80_877_103;
const GSSENC_REQUEST = 80_877_104;
const CANCEL_REQUEST = 80_877_102;
// A startup packet holds a few settings; PostgreSQL itself refuses one above 10,000 bytes.
const MAX_STARTUP_BYTES = 10_000;
const READY_FOR_QUERY = 0x5a; // 'Z'
const TERMINATE = 0x58; // 'X'

export type FrontendMessage =
  | { kind: 'startup'; bytes: Uint8Array }
  /** SSLRequest or GSSENCRequest: answered "no", and the client goes on unencrypted. */
  | { kind: 'encryption-request' }
  /** A CancelRequest: PGlite has no running statement another connection could stop. */
  | { kind: 'cancel' }
  | { kind: 'terminate' }
  | { kind: 'message'; bytes: Uint8Array };

/** The client sent something no PostgreSQL client sends. */
export class ProtocolViolation extends Error {}

/** Cuts a client's byte stream into whole messages, however the stream was split. */
export class FrontendMessages {
  private chunks: Buffer[] = [];
  private size = 0;
  private started = false;

  constructor(private readonly maxMessageBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /** The next whole message, or null until more bytes arrive. Throws ProtocolViolation. */
  next(): FrontendMessage | null {
    if (!this.started) return this.nextUntyped();
    const header = this.peek(5);
    if (header === null) return null;
    const length = 1 + header.readInt32BE(1);
    if (length < 5 || length > this.maxMessageBytes)
      throw new ProtocolViolation(`a message of ${length} bytes`);
    const bytes = this.take(length);
    if (bytes === null) return null;
    return bytes[0] === TERMINATE ? { kind: 'terminate' } : { kind: 'message', bytes };
  }

  /** Before the startup packet: messages without a type byte. */
  private nextUntyped(): FrontendMessage | null {
    const header = this.peek(8);
    if (header === null) return null;
    const length = header.readInt32BE(0);
    const code = header.readInt32BE(4);
    if (length < 8 || length > MAX_STARTUP_BYTES)
      throw new ProtocolViolation(`a startup packet of ${length} bytes`);
    const bytes = this.take(length);
    if (bytes === null) return null;
    if (code === PROTOCOL_3) {
      this.started = true;
      return { kind: 'startup', bytes };
    }
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) return { kind: 'encryption-request' };
    if (code === CANCEL_REQUEST) return { kind: 'cancel' };
    throw new ProtocolViolation(`protocol ${code >> 16}.${code & 0xffff}`);
  }

  private peek(count: number): Buffer | null {
    if (this.size < count) return null;
    if (this.chunks[0].length < count) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  private take(count: number): Uint8Array | null {
    if (this.size < count) return null;
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const rest = all.subarray(count);
    this.chunks = rest.length === 0 ? [] : [rest];
    this.size = rest.length;
    // A copy: PGlite may keep the message while the rest of the buffer is reused.
    return Uint8Array.prototype.slice.call(all, 0, count);
  }
}

/**
 * Follows PGlite's answer to one message, across however many pieces it comes in, far enough to
 * tell whether it ended with ReadyForQuery, and with which transaction status: 'I' idle, 'T' in a
 * transaction block, 'E' in a failed one.
 */
export class BackendTracker {
  private header: number[] = [];
  /** Bytes of the current message's body still to come. */
  private remaining = 0;
  private type = 0;
  private readyStatus: string | null = null;

  /** The status of the ReadyForQuery the answer so far ends with; null if it ends otherwise. */
  get status(): string | null {
    const atBoundary = this.header.length === 0 && this.remaining === 0;
    return atBoundary && this.type === READY_FOR_QUERY ? this.readyStatus : null;
  }

  /** Reads the next piece of the answer; true when it holds a ReadyForQuery saying 'I' (idle). */
  push(data: Uint8Array): boolean {
    let idle = false;
    for (let i = 0; i < data.length; ) {
      if (this.remaining === 0) {
        this.header.push(data[i]);
        i += 1;
        if (this.header.length === 5) {
          const [type, a, b, c, d] = this.header;
          this.header = [];
          this.type = type;
          this.remaining = ((a << 24) | (b << 16) | (c << 8) | d) - 4;
          this.readyStatus = null;
        }
        continue;
      }
      if (this.type === READY_FOR_QUERY && this.remaining === 1) {
        this.readyStatus = String.fromCharCode(data[i]);
        idle ||= this.readyStatus === 'I';
      }
      const skip = Math.min(this.remaining, data.length - i);
      this.remaining -= skip;
      i += skip;
    }
    return idle;
  }
}

/** A fatal ErrorResponse, for refusing a connection before or instead of PGlite's answer. */
export function fatalError(code: string, message: string): Buffer {
  return typed(0x45, Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, 'utf8'));
}

/** "No" to an SSLRequest or GSSENCRequest. */
export const NO_ENCRYPTION = Buffer.from('N');

/**
 * Ends whatever a vanished client left half done, sent one after the other: Execute of a portal
 * that does not exist fails, which aborts an extended-protocol batch the client never closed
 * with Sync; Sync then ends it. If the answer says a transaction block (BEGIN) is still open,
 * ROLLBACK follows.
 */
export const ABANDON_BATCH = [
  typed(0x45, Buffer.concat([Buffer.from('membership_directory_abandoned\0'), Buffer.alloc(4)])),
  typed(0x53, Buffer.alloc(0)),
];
export const ROLLBACK = typed(0x51, Buffer.from('ROLLBACK\0'));

function typed(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = type;
  header.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([header, body]);
}

/** A simple-protocol Query: for the gate's own statements, run without PGlite's query layer. */
export function simpleQuery(sql: string): Buffer {
  return typed(0x51, Buffer.from(`${sql}\0`, 'utf8'));
}

/** The message of the first ErrorResponse in a whole answer, or null when there is none. */
export function errorIn(answer: Buffer): string | null {
  for (let offset = 0; offset + 5 <= answer.length; ) {
    const type = answer[offset];
    const end = offset + 1 + answer.readInt32BE(offset + 1);
    if (type === 0x45) {
      const fields = answer
        .subarray(offset + 5, end)
        .toString('utf8')
        .split('\0');
      return fields.find((field) => field.startsWith('M'))?.slice(1) ?? 'an error';
    }
    offset = end;
  }
  return null;
}

/**
 * Whether a message may change what lasts beyond its transaction in the session (settings, role,
 * session user): the SQL of a simple Query or a Parse that says SET, RESET, set_config or
 * DISCARD (in any case), and any fast-path function call. Broad on purpose: a false alarm costs
 * one reading of the settings (about 5 ms). What it misses (a function of the tool's own that
 * sets a setting in its body) is lost to that tool at the next turn of another connection, never
 * passed on to one.
 */
export function mayChangeSession(message: Uint8Array): boolean {
  const type = message[0];
  if (type === 0x46) return true; // FunctionCall
  if (type !== 0x51 && type !== 0x50) return false;
  return /set|discard/i.test(
    Buffer.from(message.buffer, message.byteOffset, message.length).toString('latin1'),
  );
}
