import { diffPerson } from '../../../../src/application/people/person-diff';
import type { Person } from '../../../../src/domain/person';

const club = (id: number, name: string) => ({ id, name });

function person(): Person {
  return {
    id: 7,
    role: 'member',
    firstName: 'Ada',
    lastName: 'Lovelace',
    chatId: null,
    plannerId: null,
    memberNumber: 'M-7',
    erased: false,
    version: 3,
    contacts: [
      { id: 11, kind: 'email', value: 'ada@example.org', label: null },
      { id: 12, kind: 'phone', value: '+44 20 7946 0000', label: 'home' },
    ],
    memberships: [
      { id: 21, club: club(1, 'Deep Sky'), kind: 'full', startDate: '2025-01-01', endDate: null },
      { id: 22, club: club(2, 'Solar'), kind: null, startDate: '2024-01-01', endDate: '2024-12-31' },
    ],
  };
}

const contactsOf = (p: Person) => p.contacts.map(({ kind, value, label }) => ({ kind, value, label }));
const membershipsOf = (p: Person) =>
  p.memberships.map(({ club: { name }, kind, startDate, endDate }) => ({
    club: name,
    kind,
    startDate,
    endDate,
  }));

describe('diffPerson: contacts and memberships', () => {
  it('changes nothing when the file lists the same children in the same order', () => {
    const current = person();
    const diff = diffPerson(current, { contacts: contactsOf(current), memberships: membershipsOf(current) });
    expect(diff).toEqual({ changes: [], replacement: null });
  });

  it('changes nothing when it lists them in another order (they are matched as multisets)', () => {
    const current = person();
    const diff = diffPerson(current, {
      contacts: contactsOf(current).reverse(),
      memberships: membershipsOf(current).reverse(),
    });
    expect(diff).toEqual({ changes: [], replacement: null });
  });

  it('replaces the one child that differs, keeping the others and their ids', () => {
    const current = person();
    const memberships = membershipsOf(current);
    memberships[1] = { ...memberships[1], endDate: '2025-12-31' };
    const contacts = contactsOf(current);
    contacts[0] = { ...contacts[0], label: 'work' };

    const diff = diffPerson(current, { contacts, memberships });
    expect(diff.changes.map((change) => change.field)).toEqual(['contacts', 'memberships']);
    expect(diff.replacement).toMatchObject({
      removeContacts: [11],
      addContacts: [contacts[0]],
      removeMemberships: [22],
      addMemberships: [memberships[1]],
    });
  });

  it('tells a child of the same fields but another club or kind from the stored one', () => {
    const current = person();
    const memberships = membershipsOf(current);
    memberships[0] = { ...memberships[0], club: 'Deep Sky Observers' };
    memberships[1] = { ...memberships[1], kind: 'junior' };
    const diff = diffPerson(current, { memberships });
    expect(diff.replacement).toMatchObject({ removeMemberships: [21, 22], addMemberships: memberships });
  });
});
