import { isUtf8 } from 'node:buffer';
import { InvalidInput } from '../domain/errors';

export const NOT_AN_ARRAY = 'the file must hold a JSON array of people';

/** SPEC §6: one record may take at most 1 MiB of the file. */
export const RECORD_MAX_BYTES = 1024 * 1024;

/**
 * Bytes to read people from: a file, or a request's body. `name` is how messages name it ("the
 * request body", or the file's path).
 */
export interface ByteSource {
  name: string;
  chunks(): AsyncIterable<Buffer>;
}

/** The input cannot be read as what it should be (not UTF-8, not JSON, not CSV): one line says why. */
export class UnreadableInput extends InvalidInput {}

/** A buffer already read (a request's body), handed on in pieces like a file. */
export function bufferSource(name: string, buffer: Buffer, chunkBytes = 1024 * 1024): ByteSource {
  return {
    name,
    chunks: async function* () {
      for (let start = 0; start < buffer.length; start += chunkBytes) {
        yield buffer.subarray(start, start + chunkBytes);
      }
    },
  };
}

/**
 * The UTF-8 text of a source, in pieces, each whole characters: checked with isUtf8 and decoded by
 * Buffer#toString, both native and fast (TextDecoder with `fatal` took a sixth of the reading's
 * time). A character cut by a chunk's end waits for the next chunk. Bytes that are not UTF-8 are
 * refused naming their line, counted as the bytes go by (the source is never read twice).
 */
export async function* utf8Text(source: ByteSource): AsyncIterable<string> {
  let carried: Buffer | null = null;
  let lines = 1;
  for await (const read of source.chunks()) {
    const bytes: Buffer = carried === null ? read : Buffer.concat([carried, read]);
    const end = completeCharactersEnd(bytes);
    const whole = bytes.subarray(0, end);
    if (!isUtf8(whole)) throw notUtf8(source, lines + firstLineNotUtf8(whole));
    for (let at = whole.indexOf(0x0a); at !== -1; at = whole.indexOf(0x0a, at + 1)) lines += 1;
    carried = end < bytes.length ? Buffer.from(bytes.subarray(end)) : null;
    yield whole.toString('utf8');
  }
  if (carried !== null) throw notUtf8(source, lines);
}

function notUtf8(source: ByteSource, line: number): UnreadableInput {
  return new UnreadableInput(`${source.name} is not UTF-8 text (line ${line}); save it as UTF-8`);
}

const [QUOTE, BACKSLASH, COMMA, NEWLINE] = ['"', '\\', ',', '\n'].map((c) => c.charCodeAt(0));
const [OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = ['{', '}', '[', ']'].map((c) =>
  c.charCodeAt(0),
);

/** An element of the array, or the index of one larger than RECORD_MAX_BYTES (not parsed). */
export type ArrayElement = { index: number; value: unknown } | { index: number; tooLarge: true };

/**
 * The elements of the JSON array in a source (a file, a request's body), one at a time, each with
 * its index: read once, in chunks, and only the element being read is held, so that memory does
 * not grow with the file; an element larger than RECORD_MAX_BYTES is passed over (its index handed on), never
 * held. Any valid JSON array is read; input that is not UTF-8, not JSON or not an array is
 * refused in one line (with the line and column of the first problem), before or while the
 * elements come.
 */
export async function* readJsonArray(source: ByteSource): AsyncIterable<ArrayElement> {
  const file = source.name;
  let state: 'start' | 'array' | 'end' = 'start';
  let line = 1;
  let lineStart = 0;
  let offset = 0;
  let index = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let pieces: string[] = [];
  let piecesLength = 0;
  let tooLarge = false;
  let elementLine = 1;
  let elementColumn = 1;

  const fail = (message: string, at: { line: number; column: number }): never => {
    throw new UnreadableInput(`${file} is not valid JSON: ${message} (line ${at.line}, column ${at.column})`);
  };
  const parseElement = (text: string, isLast: boolean): ArrayElement | null => {
    // Characters are at least a byte each: a text this long is too large before it is measured.
    if (tooLarge || (text.length > RECORD_MAX_BYTES / 4 && Buffer.byteLength(text) > RECORD_MAX_BYTES)) {
      return { index: index++, tooLarge: true };
    }
    // Positions count from the element's first character, past the white space before it.
    const leading = /^[ \t\r\n]*/.exec(text)?.[0] ?? '';
    const lines = leading.split('\n');
    const start =
      lines.length === 1
        ? { line: elementLine, column: elementColumn + leading.length }
        : { line: elementLine + lines.length - 1, column: (lines.at(-1)?.length ?? 0) + 1 };
    if (leading.length === text.length) {
      if (isLast && index === 0) return null; // []
      return fail('a value is missing in the array', start);
    }
    try {
      return { index: index++, value: JSON.parse(text) };
    } catch (error) {
      // V8 names the position for some mistakes and quotes the text for others: one short line.
      const message = (error as Error).message
        .replace(/\s+/g, ' ')
        .replace(/, ".*" is not valid JSON$/, '')
        .replace(/ ?\(line \d+ column \d+\)/, '')
        .slice(0, 200);
      const position = /at position (\d+)/.exec(message);
      if (position === null) return fail(message, start);
      const before = text.slice(leading.length, Number(position[1]));
      const within = before.split('\n');
      return fail(
        message.replace(/ in JSON at position \d+/, ''),
        within.length === 1
          ? { line: start.line, column: start.column + before.length }
          : { line: start.line + within.length - 1, column: (within.at(-1)?.length ?? 0) + 1 },
      );
    }
  };

  for await (let text of utf8Text(source)) {
    // A byte order mark, as some Windows editors write, is not part of the JSON.
    if (offset === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let from = 0;
    let backslash = -2;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === NEWLINE) {
        line += 1;
        lineStart = offset + i + 1;
      }
      if (state === 'array') {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
          else {
            // Most of a file is the text inside strings: jump to the next quote or backslash.
            // (A line break inside a string is no JSON: JSON.parse refuses that element, so
            // lines skipped here are never counted for a later one.)
            // The next backslash is looked for again only once it is passed: one scan a chunk.
            if (backslash !== -1 && backslash <= i) backslash = text.indexOf('\\', i + 1);
            const quote = text.indexOf('"', i + 1);
            const next = backslash !== -1 && (quote === -1 || backslash < quote) ? backslash : quote;
            i = (next === -1 ? text.length : next) - 1;
          }
          continue;
        }
        if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth += 1;
        else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) depth -= 1;
        else if (depth === 0 && (c === COMMA || c === CLOSE_BRACKET)) {
          pieces.push(text.slice(from, i));
          const element = parseElement(pieces.join(''), c === CLOSE_BRACKET);
          pieces = [];
          piecesLength = 0;
          tooLarge = false;
          if (element !== null) yield element;
          from = i + 1;
          elementLine = line;
          elementColumn = offset + i + 2 - lineStart;
          if (c === CLOSE_BRACKET) state = 'end';
        } else if (depth === 0 && c === CLOSE_BRACE) {
          fail("unexpected '}'", { line, column: offset + i + 1 - lineStart });
        }
      } else if (c === 0x20 || c === 0x09 || c === 0x0d || c === NEWLINE) {
      } else if (state === 'start') {
        if (c !== OPEN_BRACKET) throw new InvalidInput(NOT_AN_ARRAY);
        state = 'array';
        from = i + 1;
        elementLine = line;
        elementColumn = offset + i + 2 - lineStart;
      } else {
        fail('unexpected text after the array', { line, column: offset + i + 1 - lineStart });
      }
    }
    if (state === 'array' && !tooLarge) {
      // The element goes on in the next chunk; past the limit it is no longer kept, only walked.
      const piece = text.slice(from);
      piecesLength += piece.length;
      if (piecesLength > RECORD_MAX_BYTES) {
        tooLarge = true;
        pieces = [];
      } else pieces.push(piece);
    }
    offset += text.length;
  }
  if (state === 'start') throw new InvalidInput(NOT_AN_ARRAY);
  if (state === 'array') fail('the file ends inside the array', { line, column: offset + 1 - lineStart });
}

/**
 * Where the last whole UTF-8 character of `bytes` ends: before a lead byte whose continuation
 * bytes have not all come yet, else at the end (a malformed ending is isUtf8's to find).
 */
function completeCharactersEnd(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const byte = bytes[i];
    if (byte < 0x80) return bytes.length;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return i + length > bytes.length ? i : bytes.length;
    }
  }
  return bytes.length;
}

/** The line (counted from 0 within `bytes`) of the first bytes that are not UTF-8. */
function firstLineNotUtf8(bytes: Buffer): number {
  let line = 0;
  let start = 0;
  for (let end = bytes.indexOf(0x0a); ; end = bytes.indexOf(0x0a, start)) {
    if (!isUtf8(bytes.subarray(start, end === -1 ? bytes.length : end))) return line;
    if (end === -1) return line;
    line += 1;
    start = end + 1;
  }
}
