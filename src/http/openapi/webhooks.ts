import { CHANGE_TYPES } from '../../application/ports/change-log';
import { PING_TYPE } from '../../domain/webhook';
import type { WebhookPayloadJson } from '../../infrastructure/webhooks/webhook-payload';
import { ADA } from './examples';
import { idSchema } from './integers';
import type { Header, JsonSchema, Operation, Parameter, PathItem } from './openapi-types';
import { schemaRef } from './openapi-types';
import { record } from './schema-records';

// The payloads as the service sends them: the schemas must name exactly these fields (tsc checks
// the change's against the payload builder), and the tests validate real deliveries against them.
type PingJson = { type: typeof PING_TYPE; subscription_id: number; at: string };

const WebhookChange = record<WebhookPayloadJson>(
  'One change, POSTed to every subscription that takes its type. Only what changed and where: ' +
    'read the person with GET /people/{id}, or follow GET /changes?after= the cursor. Order across ' +
    'changes is not guaranteed (order by seq), and a change may arrive twice (the same webhook-id).',
  {
    type: {
      type: 'string',
      enum: [...CHANGE_TYPES],
      description: 'The change type, as in GET /changes.',
    },
    seq: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: "The change's position in the feed, as in GET /changes.",
    },
    person_id: idSchema({ description: 'The person changed: the {id} of /people/{id}.' }),
    at: { type: 'string', format: 'date-time', description: 'When the change was made.' },
    cursor: {
      type: 'string',
      description:
        'The cursor of GET /changes just after this change: a receiver that missed deliveries (it was ' +
        'down for more than the 3 days of retries) follows GET /changes?after= its last cursor.',
    },
  },
);

const WebhookPing = record<PingJson>(
  'A test delivery sent by `webhooks ping ID`, to try a receiver. Not a change: it has no seq, ' +
    'person or cursor, and it is neither recorded nor retried. Answer it 2xx like any delivery.',
  {
    type: { type: 'string', const: PING_TYPE },
    subscription_id: idSchema({ description: 'The subscription pinged (the id of `webhooks list`).' }),
    at: { type: 'string', format: 'date-time', description: 'When the ping was sent.' },
  },
);

/** The schemas of the webhook payloads, beside the API's own. */
export function webhookSchemas(): Record<string, JsonSchema> {
  return { WebhookChange, WebhookPing };
}

/** Standard Webhooks 1.0, as every delivery carries them. */
const SIGNATURE_HEADERS: Parameter[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      "The message's id: the same on every retry of one change to one subscription, so that a " +
      'receiver can drop a duplicate. A new one for each ping.',
    schema: { type: 'string', pattern: '^msg_[0-9a-f]{32}$' },
    example: 'msg_3f5d2e1a7c4b4b0ea9f28d6c1e0b4a7e',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was sent, in seconds since 1970: refuse one more than 5 minutes away.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1768471200',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body`, keyed by the ' +
      "subscription's secret (the bytes after `whsec_`, base64-decoded). For 24 hours after " +
      '`webhooks rotate-secret` two signatures, separated by a space: accept the message if any ' +
      'one verifies. The Standard Webhooks libraries check all of this.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

const RETRY_AFTER: Header = {
  description:
    'Seconds, or an HTTP date: the next attempt waits at least this long (at most the longest step ' +
    'of the schedule, 10 hours).',
  schema: { type: 'string' },
};

function delivery(
  operationId: string,
  summary: string,
  description: string,
  schema: string,
  example: unknown,
): PathItem {
  const operation: Operation = {
    operationId,
    summary,
    description,
    tags: ['Webhooks'],
    security: [],
    parameters: SIGNATURE_HEADERS,
    requestBody: {
      description: 'The JSON body, byte for byte what is signed: verify the signature before parsing it.',
      required: true,
      content: { 'application/json': { schema: schemaRef(schema), example } },
    },
    responses: {
      '2XX': { description: 'Received: delivered. Answer within 10 seconds; the body is ignored.' },
      '410': {
        description:
          'Gone: the subscription is disabled at once, and nothing more is sent to it until `webhooks enable ID`, ' +
          'which then sends every change that waited (this one included, unless it had been delivered before), oldest first.',
      },
      default: {
        description:
          'Anything else, a redirect (never followed) or no answer within 10 seconds: the change is ' +
          'sent again after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h, for 3 days; ' +
          'then, if nothing succeeded in those 3 days, the subscription is disabled and the change waits ' +
          'for `webhooks enable ID`; otherwise this change alone is given up.',
        headers: { 'Retry-After': RETRY_AFTER },
      },
    },
  };
  return { post: operation };
}

/** OpenAPI 3.1's `webhooks`: what the service POSTs to a subscription's URL. */
export function webhooks(): Record<string, PathItem> {
  return {
    change: delivery(
      'changeWebhook',
      'A change of a person',
      'POSTed to the URL of each subscription (`webhooks add URL [--events TYPE,...]`) that takes ' +
        'the change type, as soon as the change commits. Receivers on loopback or private addresses ' +
        'are allowed.',
      'WebhookChange',
      {
        type: 'person.updated',
        seq: 41,
        person_id: ADA.id,
        at: '2026-11-21T09:30:00.000Z',
        cursor: 'djEuM2Y1ZDJlMWEtN2M0Yi00YjBlLWE5ZjItOGQ2YzFlMGI0YTdlLjQx',
      } satisfies WebhookPayloadJson,
    ),
    [PING_TYPE]: delivery(
      'pingWebhook',
      'A test delivery',
      'Sent once by `webhooks ping ID`, signed like every delivery, to try a receiver; the command ' +
        "prints the receiver's status and time.",
      'WebhookPing',
      { type: PING_TYPE, subscription_id: 3, at: '2026-11-21T09:31:00.000Z' } satisfies PingJson,
    ),
  };
}
