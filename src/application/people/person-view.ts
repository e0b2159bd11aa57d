import type { Contact } from '../../domain/contact';
import { type Grace, NO_GRACE } from '../../domain/grace';
import { isCurrent, type Membership } from '../../domain/membership';
import type { Person } from '../../domain/person';
import {
  goodStandingUntil,
  graceUntil,
  type MembershipStatus,
  membershipStatus,
  personStanding,
  type Standing,
} from '../../domain/standing';

/**
 * A Person as the API shows it (SPEC §1), and the one list of its fields. Fields are listed one
 * by one, so that nothing the domain object carries (its role, its version, credentials some
 * day) can reach a client by accident. The database renders the same view as JSON text for
 * searches (see person-json-sql.ts): it takes its field names and their order from the lists
 * below, and the contract suite holds both renderings to the same bytes.
 */
export interface PersonView {
  id: number;
  first_name: string;
  last_name: string;
  chat_id: string | null;
  planner_id: string | null;
  member_number: string | null;
  contacts: ContactView[];
  memberships: MembershipView[];
  /** SPEC §10: current, grace, pending, lapsed or none, on today, by the grace setting. */
  standing: Standing;
  /** The last day of the unbroken run of good standing from today; null when open-ended or none. */
  good_standing_until: string | null;
}

export interface ContactView {
  id: number;
  kind: Contact['kind'];
  value: string;
  label: string | null;
}

export interface ClubView {
  id: number;
  name: string;
}

export interface MembershipView {
  id: number;
  club: ClubView;
  kind: string | null;
  start_date: string;
  end_date: string | null;
  /** Whether the membership runs today (in the directory's time zone). */
  current: boolean;
  status: MembershipStatus;
  /** `end_date` plus the kind's grace days, when it has both. */
  grace_until: string | null;
}

function contactView(contact: Contact): ContactView {
  return { id: contact.id, kind: contact.kind, value: contact.value, label: contact.label };
}

function membershipView(membership: Membership, today: string, grace: Grace): MembershipView {
  return {
    id: membership.id,
    club: { id: membership.club.id, name: membership.club.name },
    kind: membership.kind,
    start_date: membership.startDate,
    end_date: membership.endDate,
    current: isCurrent(membership, today),
    status: membershipStatus(membership, today, grace),
    grace_until: graceUntil(membership, grace),
  };
}

/**
 * The view of a person on `today`, which decides which memberships are current, and under the
 * directory's grace setting, which decides the standing after an end date.
 */
export function personView(person: Person, today: string, grace: Grace): PersonView {
  return {
    id: person.id,
    first_name: person.firstName,
    last_name: person.lastName,
    chat_id: person.chatId,
    planner_id: person.plannerId,
    member_number: person.memberNumber,
    contacts: person.contacts.map(contactView),
    memberships: person.memberships.map((membership) => membershipView(membership, today, grace)),
    standing: personStanding(person.memberships, today, grace),
    good_standing_until: goodStandingUntil(person.memberships, today, grace),
  };
}

const SAMPLE_MEMBERSHIP = membershipView(
  { id: 0, club: { id: 0, name: '' }, kind: null, startDate: '', endDate: null },
  '',
  NO_GRACE,
);

/**
 * The field names of each object of the view, in the order JSON.stringify writes them: read off
 * the functions above, so that they stay the one place where fields are chosen.
 */
export const VIEW_FIELDS = {
  person: Object.keys(
    personView(
      {
        id: 0,
        role: 'member',
        firstName: '',
        lastName: '',
        chatId: null,
        plannerId: null,
        memberNumber: null,
        erased: false,
        version: 0,
        contacts: [],
        memberships: [],
      },
      '',
      NO_GRACE,
    ),
  ) as (keyof PersonView)[],
  contact: Object.keys(
    contactView({ id: 0, kind: 'email', value: '', label: null }),
  ) as (keyof ContactView)[],
  membership: Object.keys(SAMPLE_MEMBERSHIP) as (keyof MembershipView)[],
  club: Object.keys(SAMPLE_MEMBERSHIP.club) as (keyof ClubView)[],
};
