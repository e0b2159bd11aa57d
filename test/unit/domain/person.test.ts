import { chatIdRule, isVisible } from '../../../src/domain/person';

describe('isVisible', () => {
  it('shows members, never admins nor erased people', () => {
    expect(isVisible({ role: 'member' })).toBe(true);
    expect(isVisible({ role: 'member', erased: false })).toBe(true);
    expect(isVisible({ role: 'member', erased: true })).toBe(false);
    expect(isVisible({ role: 'admin' })).toBe(false);
    expect(isVisible({ role: 'admin', erased: true })).toBe(false);
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
