import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { CliFailure } from '../cli-errors';
import { describeFileError } from '../commands/file-errors';

export const NOT_AN_ARRAY = 'the file must hold a JSON array of people';

const CHUNK_BYTES = 1024 * 1024;
const [QUOTE, BACKSLASH, COMMA, NEWLINE] = ['"', '\\', ',', '\n'].map((c) => c.charCodeAt(0));
const [OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = ['{', '}', '[', ']'].map((c) =>
  c.charCodeAt(0),
);

/**
 * The elements of the JSON array in FILE, one at a time, each with its index: the file is read in
 * chunks and only the element being read is held, so that memory does not grow with the file.
 * Any valid JSON array is read; a file that is not UTF-8, not JSON or not an array is refused in
 * one line (with the line and column of the first problem), before or while the elements come.
 */
export async function* readJsonArray(file: string): AsyncIterable<{ index: number; value: unknown }> {
  let state: 'start' | 'array' | 'end' = 'start';
  let line = 1;
  let lineStart = 0;
  let offset = 0;
  let index = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let pieces: string[] = [];
  let elementLine = 1;
  let elementColumn = 1;

  const fail = (message: string, at: { line: number; column: number }): never => {
    throw new CliFailure(`${file} is not valid JSON: ${message} (line ${at.line}, column ${at.column})`);
  };
  const parseElement = (text: string, isLast: boolean): { index: number; value: unknown } | null => {
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

  let stream: AsyncIterable<Buffer>;
  try {
    stream = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  } catch (error) {
    throw new CliFailure(describeFileError(error, file, 'read'));
  }
  const chunks = async function* () {
    // Checked with isUtf8 and decoded by Buffer#toString, both native and fast: TextDecoder with
    // `fatal` took a sixth of the reading's time. A character cut by the chunk's end waits for
    // the next chunk.
    let carried: Buffer | null = null;
    try {
      for await (const read of stream as AsyncIterable<Buffer>) {
        const bytes: Buffer = carried === null ? read : Buffer.concat([carried, read]);
        const end = completeCharactersEnd(bytes);
        if (!isUtf8(bytes.subarray(0, end))) throw new NotUtf8();
        carried = end < bytes.length ? Buffer.from(bytes.subarray(end)) : null;
        yield bytes.toString('utf8', 0, end);
      }
      if (carried !== null) throw new NotUtf8();
    } catch (error) {
      if (error instanceof NotUtf8) {
        throw new CliFailure(
          `${file} is not UTF-8 text (line ${await firstLineNotUtf8(file)}); save it as UTF-8`,
        );
      }
      throw new CliFailure(describeFileError(error, file, 'read'));
    }
  };

  for await (let text of chunks()) {
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
        if (c !== OPEN_BRACKET)
          throw new CliFailure(`1 problem in ${file}; nothing was imported`, [NOT_AN_ARRAY]);
        state = 'array';
        from = i + 1;
        elementLine = line;
        elementColumn = offset + i + 2 - lineStart;
      } else {
        fail('unexpected text after the array', { line, column: offset + i + 1 - lineStart });
      }
    }
    if (state === 'array') pieces.push(text.slice(from));
    offset += text.length;
  }
  if (state === 'start') throw new CliFailure(`1 problem in ${file}; nothing was imported`, [NOT_AN_ARRAY]);
  if (state === 'array') fail('the file ends inside the array', { line, column: offset + 1 - lineStart });
}

class NotUtf8 extends Error {}

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

async function firstLineNotUtf8(file: string): Promise<number> {
  const bytes = await readFile(file);
  let line = 1;
  let start = 0;
  for (let end = bytes.indexOf(0x0a); ; end = bytes.indexOf(0x0a, start)) {
    if (!isUtf8(bytes.subarray(start, end === -1 ? bytes.length : end))) return line;
    if (end === -1) return line;
    line += 1;
    start = end + 1;
  }
}
