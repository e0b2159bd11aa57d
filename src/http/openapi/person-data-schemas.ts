import { CHANGE_TYPES } from '../../application/ports/change-log';
import type { PersonDataView } from '../../application/people/person-data-view';
import { CONTACT_KINDS } from '../../domain/contact';
import { PERMISSIONS } from '../../domain/permission';
import { MEMBERSHIP_STATUSES, STANDINGS } from '../../domain/standing';
import { idSchema } from './integers';
import { type JsonSchema, schemaRef } from './openapi-types';
import { nullable, record } from './schema-records';

// The subject-access export (SPEC §8), as personDataView writes it for the command line and the
// API alike: the schemas below must name exactly its fields (checked by tsc).
type DataPerson = PersonDataView['person'];
type DataAccount = NonNullable<PersonDataView['account']>;
type DataKey = PersonDataView['keys'][number];
type DataAudit = PersonDataView['audit'][number];
type DataChange = PersonDataView['changes'][number];

const id = (description: string): JsonSchema => idSchema({ description });
const time = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });
const permissions: JsonSchema = { type: 'array', items: { type: 'string', enum: [...PERMISSIONS] } };

const PersonDataPerson = record<DataPerson>('The person, admins and erased people included (CLI).', {
  id: id('The {id} of /people/{id}.'),
  member_number: nullable('string', "The society's membership number."),
  first_name: { type: 'string' },
  last_name: { type: 'string' },
  chat_id: nullable('string', 'User ID in the chat service.'),
  planner_id: nullable('string', 'User ID in the observation-planning service.'),
  role: { type: 'string', enum: ['member', 'admin'] },
  contacts: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        id: id('Contact identifier.'),
        kind: { type: 'string', enum: [...CONTACT_KINDS] },
        value: { type: 'string' },
        label: nullable('string', 'A free label.'),
      },
      required: ['id', 'kind', 'value', 'label'],
      additionalProperties: false,
    },
  },
  memberships: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        id: id('Membership identifier.'),
        club: { type: 'string', description: "The club's name." },
        kind: nullable('string', 'Kind of membership.'),
        start_date: { type: 'string', format: 'date' },
        end_date: nullable('string', 'Last day, inclusive; null when open-ended.', { format: 'date' }),
        status: {
          type: 'string',
          enum: [...MEMBERSHIP_STATUSES],
          description: 'On the day of the export, as in a Person.',
        },
        grace_until: nullable('string', 'end_date plus its grace days, as in a Person.', { format: 'date' }),
      },
      required: ['id', 'club', 'kind', 'start_date', 'end_date', 'status', 'grace_until'],
      additionalProperties: false,
    },
  },
  standing: {
    type: 'string',
    enum: [...STANDINGS],
    description: 'On the day of the export, as in a Person.',
  },
  good_standing_until: nullable('string', 'On the day of the export, as in a Person.', { format: 'date' }),
  erased: { type: 'boolean', description: 'Whether the person was erased (never, over the API).' },
});

const PersonDataAccount = record<DataAccount>('Their login account, without its password hash.', {
  username: { type: 'string' },
  role: { type: 'string', enum: ['member', 'admin'] },
  permissions,
  disabled: { type: 'boolean' },
});

const PersonDataKey = record<DataKey>(
  'A key the account was issued; the token masked, as it is never stored.',
  {
    id: id('Key identifier.'),
    token: { type: 'string', description: 'The first 8 characters of the token and "…".' },
    name: nullable('string', 'The label given when the key was issued.'),
    permissions,
    created_at: time('When it was issued.'),
    expires_at: nullable('string', 'When it stops working; null for never.', { format: 'date-time' }),
    last_used_at: nullable('string', 'When it last authenticated a request.', { format: 'date-time' }),
    revoked_at: nullable('string', 'When it was revoked; null while it is not.', { format: 'date-time' }),
  },
);

const PersonDataAudit = record<DataAudit>(
  'An audit entry about the person or made by their account. Those about someone else carry no ' +
    "values (old_value and new_value null): the other person's data is not the subject's.",
  {
    id: id('Entry identifier.'),
    at: time('When the change was made.'),
    actor: { type: 'string', description: '"cli" (the command line) or "account N".' },
    actor_account_id: idSchema({
      type: ['integer', 'null'],
      description: 'The account that made it; null: the command line.',
    }),
    actor_key_id: idSchema({ type: ['integer', 'null'], description: 'The key it was made with.' }),
    action: { type: 'string', description: 'Such as person.update, person.erase, key.issue.' },
    subject_type: { type: 'string', description: 'person, account or api_key.' },
    subject_id: id('The id of the person, account or key changed.'),
    field: nullable('string', 'The field changed.'),
    old_value: nullable('string', 'The value before; "[erased]" once its person was erased.'),
    new_value: nullable('string', 'The value after; "[erased]" once its person was erased.'),
  },
);

const PersonDataChange = record<DataChange>("A change of the feed about the person (GET /changes' types).", {
  seq: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  at: time('When the change was made.'),
  type: { type: 'string', enum: [...CHANGE_TYPES] },
  fields: {
    type: ['array', 'null'],
    items: { type: 'string' },
    description: 'person.updated: what changed.',
  },
  by: idSchema({
    type: ['integer', 'null'],
    description: 'The key that made it; null for the command line and the calendar.',
  }),
});

const PersonData = record<PersonDataView>(
  'Everything the directory holds about one person (SPEC §8, a subject access request): the same ' +
    'JSON as `npm run cli -- people export-data ID` writes.',
  {
    exported_at: time('When the export was read.'),
    person: schemaRef('PersonDataPerson'),
    account: { oneOf: [schemaRef('PersonDataAccount'), { type: 'null' }] },
    keys: { type: 'array', items: schemaRef('PersonDataKey') },
    audit: { type: 'array', items: schemaRef('PersonDataAudit'), description: 'Oldest first.' },
    changes: { type: 'array', items: schemaRef('PersonDataChange'), description: 'In seq order.' },
  },
);

const Erased = record<{ erased: number }>('The answer of DELETE /people/{id}.', {
  erased: id('The id of the person erased.'),
});

/** The schemas of erasure and subject access, keyed by component name. */
export function personDataSchemas(): Record<string, JsonSchema> {
  return {
    PersonData,
    PersonDataPerson,
    PersonDataAccount,
    PersonDataKey,
    PersonDataAudit,
    PersonDataChange,
    Erased,
  };
}
