import type { Contact } from '../domain/contact';
import { isCurrent, type Membership } from '../domain/membership';
import type { Person } from '../domain/person';

function mapContact(contact: Contact) {
  return { id: contact.id, kind: contact.kind, value: contact.value, label: contact.label };
}

function mapMembership(membership: Membership, today: string) {
  return {
    id: membership.id,
    club: { id: membership.club.id, name: membership.club.name },
    kind: membership.kind,
    start_date: membership.startDate,
    end_date: membership.endDate,
    current: isCurrent(membership, today),
  };
}

/**
 * A Person as the API shows it. Fields are listed one by one, so that nothing the domain object
 * carries (its role, its version, credentials some day) can reach a client by accident.
 */
export function mapPerson(person: Person, today: string) {
  return {
    id: person.id,
    first_name: person.firstName,
    last_name: person.lastName,
    chat_id: person.chatId,
    planner_id: person.plannerId,
    contacts: person.contacts.map(mapContact),
    memberships: person.memberships.map((membership) => mapMembership(membership, today)),
  };
}
