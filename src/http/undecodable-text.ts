import { isUtf8 } from 'node:buffer';

export const NOT_UTF8 = 'is not valid UTF-8 (a lone surrogate or a broken byte sequence)';

/**
 * The bytes a percent-encoded text stands for. A `%` not followed by two hex digits stays
 * literal, as the parsers read it. The text is taken byte for byte (latin1), as Node gives a URL.
 */
function percentDecoded(text: string): Buffer {
  const bytes = text
    .replace(/\+/g, ' ')
    .replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1');
}

const MAYBE_NOT_ASCII = /%[89a-f]|[\u0080-\uffff]/i;

/**
 * The name of the first parameter of a query string or form body whose percent-encoded bytes are
 * not UTF-8, or null. The parsers would put U+FFFD in their place: text silently changed, where
 * SPEC §1 wants it refused. (A lone surrogate can only travel here as such bytes, %ED%A0%80.)
 */
export function undecodableParameter(encoded: string): string | null {
  // Only a byte above 0x7F, raw or percent-encoded, can break UTF-8: most query strings have none.
  if (!MAYBE_NOT_ASCII.test(encoded)) return null;
  for (const pair of encoded.split('&')) {
    if (!isUtf8(percentDecoded(pair))) return percentDecoded(pair.split('=')[0]).toString('utf8');
  }
  return null;
}

/** Whether a body's bytes, in the charset the client declared, are not the UTF-8 it declared. */
export function isUndecodableBody(buffer: Buffer, encoding: string): boolean {
  return /^utf-?8$/i.test(encoding) && !isUtf8(buffer);
}
