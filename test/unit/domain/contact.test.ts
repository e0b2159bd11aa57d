import { type Contact, compareContacts, EMAIL_SHAPE } from '../../../src/domain/contact';

describe('compareContacts', () => {
  it('orders emails, then phones, then addresses, each kind by id', () => {
    const contacts: Contact[] = [
      { id: 4, kind: 'address', value: 'Main Street 1', label: null },
      { id: 3, kind: 'phone', value: '+44 20 7946 0000', label: null },
      { id: 5, kind: 'email', value: 'b@example.org', label: null },
      { id: 1, kind: 'phone', value: '+44 20 7946 0001', label: 'work' },
      { id: 2, kind: 'email', value: 'a@example.org', label: null },
    ];
    expect([...contacts].sort(compareContacts).map((c) => c.id)).toEqual([2, 5, 1, 3, 4]);
  });
});

describe('EMAIL_SHAPE', () => {
  it('takes one @ with something on either side, and nothing more of an address', () => {
    for (const email of ['ada@example.org', 'a@b', 'ada+club@localhost', 'zoë@exämple.org']) {
      expect(EMAIL_SHAPE.test(email)).toBe(true);
    }
    for (const text of ['ada', '@example.org', 'ada@', 'ada@@example.org', 'a da@example.org', 'a@b@c']) {
      expect(EMAIL_SHAPE.test(text)).toBe(false);
    }
  });
});
