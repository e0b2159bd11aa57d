import { NAME_MAX_LENGTH, nameRule } from '../../../src/domain/person';

describe('nameRule', () => {
  it('stores a name in NFC without the white space around it', () => {
    expect(nameRule('first_name', '  Ann  ')).toEqual({ value: 'Ann' });
    expect(nameRule('first_name', ' Jos\u0065\u0301 ')).toEqual({ value: 'Jos\u00e9' });
    expect(nameRule('last_name', 'van der Berg')).toEqual({ value: 'van der Berg' });
  });

  it('refuses a name that is empty or white space only, naming the field', () => {
    expect(nameRule('first_name', '')).toEqual({ error: 'first_name must not be empty' });
    expect(nameRule('last_name', ' \u00a0\u3000 ')).toEqual({ error: 'last_name must not be empty' });
  });

  it('counts at most 100 characters of the stored name: code points, after trimming and NFC', () => {
    expect(NAME_MAX_LENGTH).toBe(100);
    const emoji = '\u{1F600}'.repeat(100);
    expect(nameRule('first_name', emoji)).toEqual({ value: emoji });
    expect(nameRule('first_name', ` ${'a'.repeat(100)} `)).toEqual({ value: 'a'.repeat(100) });
    // 101 decomposed characters compose into 100.
    expect(nameRule('first_name', `${'a'.repeat(99)}e\u0301`)).toEqual({ value: `${'a'.repeat(99)}\u00e9` });
    expect(nameRule('first_name', 'a'.repeat(101))).toEqual({
      error: 'first_name must be at most 100 characters',
    });
  });

  it('refuses a NUL, a lone surrogate or any control character, a tab or line break included, naming the field', () => {
    expect(nameRule('first_name', 'A\u0000nn')).toEqual({
      error: 'first_name must not contain the NUL character (U+0000)',
    });
    expect(nameRule('last_name', 'A\ud800nn')).toEqual({
      error: 'last_name must not contain a lone surrogate (U+D800)',
    });
    expect(nameRule('first_name', 'A\u0007nn')).toEqual({
      error: 'first_name must not contain control characters (found U+0007)',
    });
    expect(nameRule('first_name', 'Ann\nMarie')).toEqual({
      error: 'first_name must not contain control characters (found U+000A)',
    });
    expect(nameRule('first_name', '\tAnn')).toEqual({
      error: 'first_name must not contain control characters (found U+0009)',
    });
  });
});
