import { errorMessages, messagesFor } from '../../../src/http/error-messages';

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `problem ${i}`);

describe('errorMessages', () => {
  it('keeps 20 messages or fewer as they are', () => {
    expect(errorMessages([])).toEqual([]);
    expect(errorMessages(numbered(20))).toEqual(numbered(20));
  });

  it('shows 19 of 21 or more and a 20th that counts the rest', () => {
    expect(errorMessages(numbered(21))).toEqual([...numbered(19), '… and 2 more problems']);
    expect(errorMessages(numbered(1700))).toEqual([...numbered(19), '… and 1681 more problems']);
  });

  it('counts problems whose messages were never built', () => {
    expect(errorMessages(numbered(20), 5000)).toEqual([...numbered(19), '… and 4981 more problems']);
  });

  it('leaves a bounded list bounded when applied again', () => {
    const once = errorMessages(numbered(300));
    expect(errorMessages(once)).toEqual(once);
  });
});

describe('messagesFor', () => {
  it('builds only the messages that can be shown, however many items there are', () => {
    let built = 0;
    const messages = messagesFor(numbered(5000), (item) => {
      built += 1;
      return `bad ${item}`;
    });
    expect(built).toBeLessThanOrEqual(20);
    expect(messages).toHaveLength(20);
    expect(messages[0]).toBe('bad problem 0');
    expect(messages[19]).toBe('… and 4981 more problems');
  });

  it('builds one message per item for a short list', () => {
    expect(messagesFor(['a', 'b'], (item) => `bad ${item}`)).toEqual(['bad a', 'bad b']);
  });
});
