import { TokenCodec } from '../../../../src/infrastructure/security/token-codec';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('TokenCodec', () => {
  const codec = new TokenCodec();

  it('issues tokens with the mdk_ prefix, base62 characters and a valid checksum', () => {
    const { token } = codec.issue();
    expect(token).toMatch(/^mdk_[0-9A-Za-z]{38}$/);
    expect(codec.isWellFormed(token)).toBe(true);
  });

  it('carries at least 160 random bits', () => {
    const { token } = codec.issue();
    const randomCharacters = token.length - 'mdk_'.length - 6;
    expect(randomCharacters * Math.log2(62)).toBeGreaterThanOrEqual(160);
  });

  it('never issues the same token twice in many tries', () => {
    const tokens = new Set(Array.from({ length: 2000 }, () => codec.issue().token));
    expect(tokens.size).toBe(2000);
  });

  it('uses the whole alphabet in the random part', () => {
    const seen = new Set(
      Array.from({ length: 200 }, () => codec.issue().token.slice(4, 36))
        .join('')
        .split(''),
    );
    expect(seen.size).toBe(62);
  });

  it('refuses a token with any one character changed', () => {
    const { token } = codec.issue();
    for (let i = 0; i < token.length; i++) {
      const replacement = ALPHABET[(ALPHABET.indexOf(token[i]) + 1) % ALPHABET.length] ?? 'x';
      const changed = token.slice(0, i) + replacement + token.slice(i + 1);
      expect(codec.isWellFormed(changed)).toBe(false);
    }
  });

  it('refuses truncated, extended, foreign and non-string values', () => {
    const { token } = codec.issue();
    expect(codec.isWellFormed(token.slice(0, -1))).toBe(false);
    expect(codec.isWellFormed(`${token}a`)).toBe(false);
    expect(codec.isWellFormed(`xyz_${token.slice(4)}`)).toBe(false);
    expect(codec.isWellFormed(`${token.slice(0, 10)}-${token.slice(11)}`)).toBe(false);
    expect(codec.isWellFormed('')).toBe(false);
    expect(codec.isWellFormed(undefined as unknown as string)).toBe(false);
  });

  it('stores a SHA-256 hex hash that is stable for a token and differs between tokens', () => {
    const a = codec.issue();
    const b = codec.issue();
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(codec.hash(a.token)).toBe(a.hash);
    expect(a.hash).not.toBe(b.hash);
    expect(a.hash).not.toContain(a.token);
  });

  it('keeps the first 8 characters for display and masks them with an ellipsis', () => {
    const { token, prefix } = codec.issue();
    expect(prefix).toBe(token.slice(0, 8));
    expect(prefix.startsWith('mdk_')).toBe(true);
    expect(codec.mask(prefix)).toBe(`${token.slice(0, 8)}…`);
  });
});
