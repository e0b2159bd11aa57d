import type { ApiKeyResponse } from '../api-key.mapper';
import type { PersonView } from '../../application/people/person-view';

// Examples shown by the reference page and by generated clients. Typed by what the mappers
// return, so that a field added or renamed there cannot leave them behind; the tests validate each
// against its schema.

type PersonJson = PersonView;

/** The README's person. */
export const ADA: PersonJson = {
  id: 12,
  first_name: 'Ada',
  last_name: 'Lovelace',
  chat_id: 'U024BE7LH',
  planner_id: null,
  member_number: 'NA-1815',
  contacts: [{ id: 31, kind: 'email', value: 'ada@example.org', label: 'home' }],
  memberships: [
    {
      id: 40,
      club: { id: 1, name: 'Northern Astronomers' },
      kind: 'full',
      start_date: '2024-01-01',
      end_date: null,
      current: true,
      status: 'current',
      grace_until: null,
    },
  ],
  standing: 'current',
  good_standing_until: null,
};

const CAROLINE: PersonJson = {
  id: 13,
  first_name: 'Caroline',
  last_name: 'Herschel',
  chat_id: null,
  planner_id: 'obs-2231',
  member_number: null,
  contacts: [
    { id: 32, kind: 'address', value: '19 New King Street\nBath BA1 2BL', label: null },
    { id: 33, kind: 'email', value: 'caroline@example.org', label: 'work' },
    { id: 34, kind: 'phone', value: '+44 1225 446865', label: 'home' },
  ],
  memberships: [
    {
      id: 41,
      club: { id: 1, name: 'Northern Astronomers' },
      kind: 'student',
      start_date: '2021-09-01',
      end_date: '2023-08-31',
      current: false,
      status: 'ended',
      grace_until: null,
    },
  ],
  standing: 'lapsed',
  good_standing_until: null,
};

/** A page of a search. */
export const PEOPLE = [ADA, CAROLINE];

/** A search the README shows. */
export const FILTER = { chat_id: 'U024BE7LH', active: 'yes' };

/**
 * A token of the real shape whose checksum is deliberately wrong: secret scanners that check the
 * checksum do not report the documentation, and the service refuses it without a lookup.
 */
export const EXAMPLE_TOKEN = 'mdk_7Hq2VxK9cLwT4pZ8mN3bR6yF1dJ5sGeA000000';

const MASKED_TOKEN = `${EXAMPLE_TOKEN.slice(0, 8)}…`;

/** The answer of POST /keys: the token in full, once. */
export const ISSUED_KEY: ApiKeyResponse = {
  id: 7,
  token: EXAMPLE_TOKEN,
  name: 'chat bot',
  permissions: ['read'],
  created_at: '2026-01-15T09:30:00.000Z',
  expires_at: '2026-04-15T09:30:00.000Z',
  last_used_at: null,
};

/** A key as GET and DELETE /keys show it, token masked. */
export const LISTED_KEY: ApiKeyResponse = {
  ...ISSUED_KEY,
  token: MASKED_TOKEN,
  last_used_at: '2026-01-20T18:02:00.000Z',
};

export const LISTED_KEYS: ApiKeyResponse[] = [
  {
    id: 5,
    token: 'mdk_Q3pe…',
    name: null,
    permissions: ['read', 'write'],
    created_at: '2025-11-02T14:11:09.000Z',
    expires_at: null,
    last_used_at: '2026-01-21T07:45:00.000Z',
  },
  LISTED_KEY,
];
