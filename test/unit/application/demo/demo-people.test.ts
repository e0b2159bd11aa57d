import { DEMO_CLUBS, demoAdmins, demoPeople } from '../../../../src/application/demo/demo-people';
import { isCurrent } from '../../../../src/domain/membership';
import { checkPersonRecord, toPersonRecord } from '../../../../src/person-file/person-file-record';

const TODAY = '2025-03-15';

describe('demoPeople', () => {
  it('is the same on every run for a given day', () => {
    expect(demoPeople(TODAY)).toEqual(demoPeople(TODAY));
  });

  it('has about fifty members of three clubs with current, past and future memberships', () => {
    const people = demoPeople(TODAY);
    const memberships = people.flatMap((p) => p.memberships);
    expect(people.length).toBeGreaterThanOrEqual(45);
    expect(new Set(memberships.map((m) => m.club))).toEqual(new Set(DEMO_CLUBS));
    expect(people.some((p) => p.memberships.some((m) => isCurrent(m, TODAY)))).toBe(true);
    expect(
      people.some(
        (p) =>
          p.memberships.length > 0 && p.memberships.every((m) => m.endDate !== null && m.endDate < TODAY),
      ),
    ).toBe(true);
    expect(memberships.some((m) => m.startDate > TODAY)).toBe(true);
    expect(people.some((p) => p.chatId !== null) && people.some((p) => p.chatId === null)).toBe(true);
    expect(people.some((p) => p.plannerId !== null)).toBe(true);
    expect(new Set(people.map((p) => p.chatId).filter((c) => c !== null)).size).toBe(
      people.filter((p) => p.chatId !== null).length,
    );
  });

  it('passes the checks of the import format, admins included', () => {
    for (const [index, person] of [...demoPeople(TODAY), ...demoAdmins()].entries()) {
      const record = toPersonRecord({
        ...person,
        id: index + 1,
        memberNumber: null,
        erased: false,
        version: 1,
        contacts: person.contacts.map((c, i) => ({ ...c, id: i + 1 })),
        memberships: person.memberships.map((m, i) => ({ ...m, id: i + 1, club: { id: 1, name: m.club } })),
      });
      expect(checkPersonRecord(record)).toEqual({ record: { ...person, id: index + 1, memberNumber: null } });
    }
    expect(demoAdmins().every((a) => a.role === 'admin')).toBe(true);
  });
});
