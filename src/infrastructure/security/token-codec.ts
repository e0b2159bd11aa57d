import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { IssuedToken, TokenService } from '../../application/ports/token-service';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_PREFIX = 'mdk_';
// 32 base62 characters carry 32 × log2(62) ≈ 190 bits, comfortably above the 160 required.
const SECRET_LENGTH = 32;
// CRC32 is below 2^32 < 62^6, so six characters always hold it.
const CHECKSUM_LENGTH = 6;
const TOKEN_LENGTH = TOKEN_PREFIX.length + SECRET_LENGTH + CHECKSUM_LENGTH;
const SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`);
const DISPLAY_LENGTH = 8;
// The largest multiple of 62 that fits in a byte: bytes at or above it are dropped so that every
// character is equally likely (a plain modulo would favour the first characters).
const UNBIASED_LIMIT = 248;

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/**
 * Tokens look like `mdk_` + 32 random base62 characters + a 6-character CRC32 of what precedes
 * it. The prefix lets secret scanners find leaked tokens; the checksum lets anyone refuse a
 * mistyped token without a database round-trip. Only a SHA-256 of the token is stored: a fast
 * hash is right for a high-entropy secret (bcrypt is for guessable passwords).
 */
export class TokenCodec implements TokenService {
  issue(): IssuedToken {
    const body = TOKEN_PREFIX + randomBase62(SECRET_LENGTH);
    const token = body + checksum(body);
    return { token, prefix: token.slice(0, DISPLAY_LENGTH), hash: this.hash(token) };
  }

  isWellFormed(token: string): boolean {
    if (typeof token !== 'string' || token.length !== TOKEN_LENGTH || !SHAPE.test(token)) return false;
    const body = token.slice(0, -CHECKSUM_LENGTH);
    return checksum(body) === token.slice(-CHECKSUM_LENGTH);
  }

  hash(token: string): string {
    return createHash('sha256').update(token, 'utf8').digest('hex');
  }

  mask(prefix: string): string {
    return `${prefix}…`;
  }
}
