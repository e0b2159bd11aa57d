import { type Contact, compareContacts } from '../../../src/domain/contact';

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
