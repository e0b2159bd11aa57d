import fc from 'fast-check';
import {
  characterCount,
  characterProblem,
  checkIdentifier,
  checkText,
  foldCase,
  NOT_NFC,
} from '../../../src/domain/text';

// Any Unicode scalar values (lone surrogates are refused before anything is folded), and
// graphemes, which bring combining sequences that NFC and NFD write differently.
const scalar = fc
  .integer({ min: 0, max: 0x10ffff - 0x800 })
  .map((n) => String.fromCodePoint(n < 0xd800 ? n : n + 0x800));
const unicodeText = fc.oneof(
  fc.string({ unit: scalar, maxLength: 30 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 30 }),
);
const nfd = (text: string) => text.normalize('NFD');

describe('characterCount', () => {
  it('counts code points, so a character outside the BMP is one, not two', () => {
    expect(characterCount('𠮷'.repeat(100))).toBe(100);
    expect(characterCount('😀'.repeat(51))).toBe(51);
    expect(characterCount('abc')).toBe(3);
    // A lone surrogate is one code point too.
    expect(characterCount('\ud800x')).toBe(2);
  });
});

describe('characterProblem', () => {
  it('refuses NUL, lone surrogates and control characters, naming the character', () => {
    expect(characterProblem('a\u0000b')).toBe('must not contain the NUL character (U+0000)');
    expect(characterProblem('a\ud800b')).toBe('must not contain a lone surrogate (U+D800)');
    expect(characterProblem('\udfff')).toBe('must not contain a lone surrogate (U+DFFF)');
    expect(characterProblem('a\u007fb')).toBe('must not contain control characters (found U+007F)');
    expect(characterProblem('a\u0085b')).toBe('must not contain control characters (found U+0085)');
    expect(characterProblem('a\tb')).toBe('must not contain control characters (found U+0009)');
    expect(characterProblem('a\nb')).toBe('must not contain control characters (found U+000A)');
  });

  it('allows tabs and line breaks only where lines are allowed, and nothing else there', () => {
    expect(characterProblem('1 Road\r\n\tTown', { lines: true })).toBeNull();
    expect(characterProblem('1 Road\u000bTown', { lines: true })).toBe(
      'must not contain control characters (found U+000B)',
    );
    expect(characterProblem('a\u0000', { lines: true })).toBe('must not contain the NUL character (U+0000)');
    expect(characterProblem('\ud83d', { lines: true })).toBe('must not contain a lone surrogate (U+D83D)');
  });

  it('accepts surrogate pairs, emoji, combining marks and other scripts', () => {
    expect(characterProblem('𠮷😀 Zoë Σίσυφος 李 \u2028')).toBeNull();
  });
});

describe('checkText', () => {
  it('stores NFC without surrounding white space', () => {
    expect(checkText('  Zoe\u0308 ', { maxLength: 100 })).toEqual({ text: 'Zoë' });
    expect(checkText('   ', { maxLength: 100 })).toEqual({ text: '' });
  });

  it('counts the length in characters of the stored (NFC) text', () => {
    expect(checkText('𠮷'.repeat(100), { maxLength: 100 })).toEqual({ text: '𠮷'.repeat(100) });
    expect(checkText('𠮷'.repeat(101), { maxLength: 100 })).toEqual({
      problem: 'must be at most 100 characters',
    });
    // 100 characters sent decomposed are 200 code points, and 100 once stored.
    expect(checkText(nfd('é'.repeat(100)), { maxLength: 100 })).toEqual({ text: 'é'.repeat(100) });
  });

  it('refuses text with a refused character instead of changing it', () => {
    expect(checkText('Ada\ud800', { maxLength: 100 })).toEqual({
      problem: 'must not contain a lone surrogate (U+D800)',
    });
  });
});

describe('checkIdentifier', () => {
  it('keeps an identifier exactly as given, surrounding spaces included', () => {
    expect(checkIdentifier(' @ada:example.org', 64)).toEqual({ text: ' @ada:example.org' });
  });

  it('makes a blank identifier empty, meaning not set', () => {
    expect(checkIdentifier('', 64)).toEqual({ text: '' });
    expect(checkIdentifier('   ', 64)).toEqual({ text: '' });
    expect(checkIdentifier('\u00a0\u3000', 64)).toEqual({ text: '' });
  });

  it('refuses an identifier that NFC would change, rather than changing it', () => {
    expect(checkIdentifier('zoe\u0308', 64)).toEqual({ problem: NOT_NFC });
    expect(checkIdentifier('zoë', 64)).toEqual({ text: 'zoë' });
  });

  it('counts characters and refuses control characters', () => {
    expect(checkIdentifier('😀'.repeat(64), 64)).toEqual({ text: '😀'.repeat(64) });
    expect(checkIdentifier('😀'.repeat(65), 64)).toEqual({ problem: 'must be at most 64 characters' });
    expect(checkIdentifier(' \t ', 64)).toEqual({
      problem: 'must not contain control characters (found U+0009)',
    });
  });
});

describe('foldCase', () => {
  it.each([
    ['ΣΊΣΥΦΟΣ', 'σίσυφος'],
    ['STRASSE', 'straße'],
    ['STRASSE', 'STRAẞE'],
    ['Zoë', 'zoe\u0308'],
    ['İstanbul', 'i\u0307stanbul'],
    ['ﬁne', 'FINE'],
    ['ᾼ', 'ᾳ'],
    ['Ꭰ', 'ꭰ'],
    ['\u03aa\u0301', '\u0390'],
  ])('folds %s and %s to the same text', (a, b) => {
    expect(foldCase(a)).toBe(foldCase(b));
  });

  it('keeps apart what only looks alike', () => {
    expect(foldCase('straße')).not.toBe(foldCase('strase'));
    expect(foldCase('é')).not.toBe(foldCase('e'));
    expect(foldCase('ı')).not.toBe(foldCase('i'));
  });

  it('leaves %, _ and \\ as they are, so a LIKE pattern can escape them after folding', () => {
    expect(foldCase('A%B_C\\D')).toBe('a%b_c\\d');
  });

  it('gives the same result for any text in NFC and in NFD', () => {
    fc.assert(fc.property(unicodeText, (text) => foldCase(nfd(text)) === foldCase(text.normalize('NFC'))));
  });

  it('gives NFC, and folding it again changes nothing', () => {
    fc.assert(
      fc.property(unicodeText, (text) => {
        const folded = foldCase(text);
        return folded === folded.normalize('NFC') && foldCase(folded) === folded;
      }),
    );
  });

  it('matches upper and lower case of the same text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'aBcÄöÜßσΣςπΠжЖ'), maxLength: 20 }),
        (text) => foldCase(text.toUpperCase()) === foldCase(text.toLowerCase()),
      ),
    );
  });
});
