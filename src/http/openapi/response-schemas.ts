import type { PersonView } from '../../application/people/person-view';
import { CHANGE_TYPES } from '../../application/ports/change-log';
import { CONTACT_KINDS } from '../../domain/contact';
import { PERMISSIONS } from '../../domain/permission';
import { MEMBERSHIP_STATUSES, STANDINGS } from '../../domain/standing';
import type { ApiKeyResponse } from '../api-key.mapper';
import type { ChangePageJson, mapChange } from '../change.mapper';
import { idSchema } from './integers';
import { personDataSchemas } from './person-data-schemas';
import { nullable, record } from './schema-records';
import { type JsonSchema, schemaRef } from './openapi-types';

// What the mappers return: the schemas below must name exactly these fields (checked by tsc), and
// real answers are validated against them by the tests.
type PersonJson = PersonView;
type ContactJson = PersonJson['contacts'][number];
type MembershipJson = PersonJson['memberships'][number];
type ClubJson = MembershipJson['club'];
type ChangeJson = NonNullable<ReturnType<typeof mapChange>>;

const id = (description: string): JsonSchema => idSchema({ description });

const Contact = record<ContactJson>('A way to reach a person. Contacts are ordered by kind, then id.', {
  id: id('Contact identifier.'),
  kind: { type: 'string', enum: [...CONTACT_KINDS] },
  value: {
    type: 'string',
    description: 'The address, number or email; an address is one multi-line string.',
  },
  label: nullable('string', 'A free label such as "home" or "work".'),
});

const Club = record<ClubJson>('A club a membership belongs to.', {
  id: id('Club identifier.'),
  name: { type: 'string', description: 'Unique club name.' },
});

const Membership = record<MembershipJson>('A membership of a club, ordered by start_date, then id.', {
  id: id('Membership identifier.'),
  club: schemaRef('Club'),
  kind: nullable('string', 'Kind of membership, such as "full" or "student".'),
  start_date: { type: 'string', format: 'date', description: 'First day, YYYY-MM-DD.' },
  end_date: nullable('string', 'Last day (inclusive), YYYY-MM-DD; null when open-ended.', { format: 'date' }),
  current: {
    type: 'boolean',
    description: "Whether start_date <= today <= end_date, today in the directory's time zone.",
  },
  status: {
    type: 'string',
    enum: [...MEMBERSHIP_STATUSES],
    description:
      'pending (today < start_date), current (exactly when `current` is true), grace (end_date < today <= grace_until), else ended.',
  },
  grace_until: nullable(
    'string',
    "end_date plus the grace days of the membership's kind (settings GRACE_DAYS, GRACE_DAYS_BY_KIND); null without an end date or without grace.",
    { format: 'date' },
  ),
});

const Person = record<PersonJson>('A member of the directory. Admins never appear.', {
  id: id('Internal identifier, the {id} of /people/{id}.'),
  first_name: { type: 'string' },
  last_name: { type: 'string' },
  chat_id: nullable(
    'string',
    'User ID in the external chat service; unique among members (the people the API shows).',
  ),
  planner_id: nullable('string', 'User ID in the observation-planning service; read-only through the API.'),
  member_number: nullable(
    'string',
    "The society's own membership number, 1 to 64 characters; unique across people; set by the " +
      'import, read-only through the API.',
    { minLength: 1, maxLength: 64 },
  ),
  contacts: { type: 'array', items: schemaRef('Contact') },
  memberships: { type: 'array', items: schemaRef('Membership') },
  standing: {
    type: 'string',
    enum: [...STANDINGS],
    description:
      'The first that applies: current, grace, pending (the best status among the memberships), lapsed (memberships, none of those), none (no membership).',
  },
  good_standing_until: nullable(
    'string',
    'For standing current or grace: the last day D such that every day from today to D is covered by a membership current or in grace (touching or overlapping periods chain). Null when that chain reaches an open-ended membership, and for any other standing.',
    { format: 'date' },
  ),
});

const CHANGED_FIELDS = [
  'first_name',
  'last_name',
  'chat_id',
  'planner_id',
  'member_number',
  'contacts',
  'memberships',
  'standing',
];

const Change = record<ChangeJson>('One change of a person, in the order of `seq`. Admins never appear.', {
  seq: {
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Position in the feed: increasing in the order changes were committed (there may be gaps).',
  },
  at: { type: 'string', format: 'date-time', description: 'When the change was made.' },
  type: {
    type: 'string',
    enum: [...CHANGE_TYPES],
    description:
      'person.created, person.updated (see fields), person.erased (person is null), person.removed ' +
      '(person is null: no longer in the directory without being erased, e.g. made an admin; delete ' +
      "your copy), and membership.started / membership.ending / membership.ended as the calendar turns in the directory's time zone " +
      '(membership.ending: RENEWAL_NOTICE_DAYS before a current membership ends; membership.lapsed: the day ' +
      'after its grace_until, or after its end_date without grace), and person.standing_changed (fields ' +
      '["standing"]) when a person\'s standing changes, by a write or by the calendar.',
  },
  person_id: id('The person changed: the {id} of /people/{id}.'),
  fields: {
    type: ['array', 'null'],
    items: { type: 'string', enum: CHANGED_FIELDS },
    description:
      'person.updated: the fields that changed; person.standing_changed: ["standing"]; null for the other types.',
  },
  by: idSchema({
    type: ['integer', 'null'],
    description:
      'The id of the API key that made the change (the id of GET /keys), so that a client can skip its ' +
      'own writes; null for the command line and the calendar.',
  }),
  person: {
    oneOf: [schemaRef('Person'), { type: 'null' }],
    description: 'The person as they are now (not as they were then); null once erased.',
  },
});

const ChangePage = record<ChangePageJson>('A page of the change feed.', {
  changes: { type: 'array', items: schemaRef('Change') },
  cursor: {
    type: 'string',
    description:
      'Opaque. Store it and ask again with `after=` this cursor: the same cursor comes back while nothing is new.',
  },
  has_more: { type: 'boolean', description: 'More changes are waiting: ask again at once.' },
});

const ApiKey = record<ApiKeyResponse>('An API key (bearer token) of the calling account.', {
  id: id('Key identifier, the {id} of DELETE /keys/{id}.'),
  token: {
    type: 'string',
    // The whole token (mdk_ + 38 base62 characters), or its first 8 characters and an ellipsis.
    pattern: '^mdk_[0-9A-Za-z]{4}(?:[0-9A-Za-z]{34}|…)$',
    description:
      'The bearer token in full in the answer to POST /keys, and never again: elsewhere its first ' +
      '8 characters followed by "…".',
  },
  name: nullable('string', 'The label given when the key was issued.'),
  permissions: {
    type: 'array',
    items: { type: 'string', enum: [...PERMISSIONS] },
    description: 'read: read people; write: change people. Fixed when the key is issued.',
  },
  created_at: { type: 'string', format: 'date-time' },
  expires_at: nullable('string', 'When the key stops working; null for never.', { format: 'date-time' }),
  last_used_at: nullable('string', 'When the key last authenticated a request (to within a minute).', {
    format: 'date-time',
  }),
});

const ErrorSchema = record<{ errors: string[] }>('Every error answer, on every route.', {
  errors: {
    type: 'array',
    items: { type: 'string' },
    minItems: 1,
    maxItems: 20,
    description: 'Error messages, at most 20.',
  },
});

const Status = record<{ status: string }>('Answer of the readiness probe.', {
  status: { type: 'string', const: 'ok' },
});

const Health = record<{ status: string; version: string }>('Answer of the liveness probe.', {
  status: { type: 'string', const: 'ok' },
  version: { type: 'string', description: "The service's release (package.json, CHANGELOG.md), e.g. 1.1.0." },
});

/** The answer schemas, keyed by component name. */
export function responseSchemas(): Record<string, JsonSchema> {
  return {
    Person,
    Contact,
    Membership,
    Club,
    Change,
    ChangePage,
    ApiKey,
    Error: ErrorSchema,
    Status,
    Health,
    ...personDataSchemas(),
  };
}
