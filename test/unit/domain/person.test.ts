import { chatIdRule, isVisible, NAME_MAX_LENGTH, nameRule } from '../../../src/domain/person';

describe('isVisible', () => {
  it('shows members, never admins nor erased people', () => {
    expect(isVisible({ role: 'member' })).toBe(true);
    expect(isVisible({ role: 'member', erased: false })).toBe(true);
    expect(isVisible({ role: 'member', erased: true })).toBe(false);
    expect(isVisible({ role: 'admin' })).toBe(false);
    expect(isVisible({ role: 'admin', erased: true })).toBe(false);
  });
});

describe('nameRule', () => {
  it('stores a name trimmed and in NFC', () => {
    expect(nameRule('first_name', '  Zoe\u0308  ')).toEqual({ value: 'Zoë' });
  });

  it('refuses an empty or blank name, naming the field', () => {
    expect(nameRule('last_name', '')).toEqual({ error: 'last_name must not be empty' });
    expect(nameRule('last_name', '   ')).toEqual({ error: 'last_name must not be empty' });
  });

  it(`accepts ${NAME_MAX_LENGTH} characters, counted as code points, and refuses one more`, () => {
    expect(nameRule('first_name', '𠮷'.repeat(NAME_MAX_LENGTH))).toEqual({
      value: '𠮷'.repeat(NAME_MAX_LENGTH),
    });
    expect(nameRule('first_name', 'a'.repeat(NAME_MAX_LENGTH + 1))).toEqual({
      error: `first_name must be at most ${NAME_MAX_LENGTH} characters`,
    });
  });

  it('refuses control characters rather than dropping them', () => {
    const checked = nameRule('first_name', 'Ada\u0000');
    expect(checked).toEqual({
      error: expect.stringMatching(/^first_name must not contain the NUL character/),
    });
  });
});

describe('chatIdRule', () => {
  it('keeps an identifier exactly as given, untrimmed', () => {
    expect(chatIdRule('chat_id', ' U123 ')).toEqual({ value: ' U123 ' });
  });

  it('reads null, empty and blank as not set', () => {
    expect(chatIdRule('chat_id', null)).toEqual({ value: null });
    expect(chatIdRule('chat_id', '')).toEqual({ value: null });
    expect(chatIdRule('chat_id', '   ')).toEqual({ value: null });
  });

  it('refuses text that NFC would change, naming the field', () => {
    expect(chatIdRule('planner_id', 'Zoe\u0308')).toEqual({
      error: expect.stringMatching(/^planner_id must be in Unicode normalization form C/),
    });
  });
});
