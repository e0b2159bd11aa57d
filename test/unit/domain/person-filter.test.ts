import { isLookup } from '../../../src/domain/person-filter';

describe('isLookup', () => {
  it('is a search by chat_id or email, whatever else it asks', () => {
    expect(isLookup({ chatId: 'U1' })).toBe(true);
    expect(isLookup({ email: 'ada@example.org', active: 'yes' })).toBe(true);
    expect(isLookup({})).toBe(false);
    expect(isLookup({ lastName: 'Lovelace', hasChat: true })).toBe(false);
  });
});
