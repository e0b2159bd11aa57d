import { HEADERS } from './headers';
import { changesPaths } from './changes-paths';
import { importsPaths } from './imports-paths';
import { keysPaths } from './keys-paths';
import type { OpenApiDocument, Paths, ResponseObject } from './openapi-types';
import { peoplePaths } from './people-paths';
import { personRecordPaths } from './person-record-paths';
import { requestSchemas } from './request-schemas';
import { FAILURE_RESPONSES } from './responses';
import { responseSchemas } from './response-schemas';
import { servicePaths } from './service-paths';
import { webhookSchemas, webhooks } from './webhooks';

const DESCRIPTION = `An HTTP JSON API over a club's membership database: search people, read and
update one person, follow every change of people, and manage the API keys (bearer tokens) that
call it.

- Get a key with \`POST /keys\` (Basic authentication: username and password), then send
  \`Authorization: Bearer <token>\` on every other call. On this page: **Authorize**, and paste
  the token alone (\`mdk_...\`), without the word Bearer.
- Every error, on every route, is \`{"errors": ["message", ...]}\`.
- Request bodies are JSON (PATCH /people/{id} also takes form-encoded bodies; POST /imports also CSV), at most 16 KiB (413), and 10 MiB on POST /imports.
- An unknown route answers 404; a known route with another method answers 405 with \`Allow\`.
- Each key may make a limited number of requests a minute (setting RATE_LIMIT_PER_MINUTE, default
  1200); every answer to a bearer-authenticated request carries \`RateLimit\` and
  \`RateLimit-Policy\` (IETF draft 8), and 429 comes with \`Retry-After\`.
- Ids are 32-bit integers.
- Every response carries \`X-Request-Id\` and \`API-Version: 1.0.0\`.

**Keeping a copy of the directory.** List \`GET /people\` once and keep its \`Changes-Cursor\`
header; then follow \`GET /changes?after=<cursor>\`: every change of a person (created, updated
with the fields that changed, erased, removed, and memberships starting, ending and ended as the
calendar turns) exactly once, in \`seq\` order, each with the person as they are now. Store the
answer's \`cursor\` and ask again from it. Changes are kept CHANGES_RETENTION_DAYS (default 30); an
older cursor answers 410: list \`/people\` again.

**Webhooks.** Instead of asking, a receiver can be told: an operator subscribes its URL with
\`npm run cli -- webhooks add URL [--events TYPE,...]\`, and each change is POSTed to it as
\`{"type", "seq", "person_id", "at", "cursor"}\`, signed by the Standard Webhooks scheme (headers
\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`; see the Webhooks section below). A 2xx
within 10 s is delivered; anything else is retried for 3 days, and \`410 Gone\` disables the
subscription. A receiver that missed deliveries follows \`GET /changes\` from the last cursor it
got.`;

/** The shared failure answers the operations refer to, and no other. */
function referencedFailures(paths: Paths): Record<string, ResponseObject> {
  const referenced = new Set(
    [...JSON.stringify(paths).matchAll(/"#\/components\/responses\/([^"]+)"/g)].map((match) => match[1]),
  );
  return Object.fromEntries(Object.entries(FAILURE_RESPONSES).filter(([name]) => referenced.has(name)));
}

/**
 * The OpenAPI 3.1 document of the service: plain OpenAPI, its shared answers and headers
 * referenced from components. Request schemas are generated from the class-validator DTOs the
 * routes validate with; answer schemas are typed by the mappers. Built once, at start-up; the
 * tests check it against the routes served, the answers given, and its own examples.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  const schemas = { ...requestSchemas(), ...responseSchemas(), ...webhookSchemas() };
  // The secretary's edits share /people with the search: each path's operations are merged.
  const paths: Paths = {};
  for (const part of [
    peoplePaths(schemas.PersonFilter),
    personRecordPaths(),
    changesPaths(),
    keysPaths(),
    servicePaths(),
    importsPaths(),
  ]) {
    for (const [path, item] of Object.entries(part)) paths[path] = { ...paths[path], ...item };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Membership Directory', version: '1.0.0', description: DESCRIPTION },
    // Relative: wherever the service runs, its paths are on the origin that served this document.
    servers: [{ url: '/', description: 'The service that serves this document.' }],
    tags: [
      { name: 'People', description: 'Search, read and update people (admins never appear).' },
      { name: 'Changes', description: 'Follow changes of people, to keep a copy of the directory.' },
      { name: 'Keys', description: 'Issue, list and revoke API keys.' },
      { name: 'Service', description: 'Probes, metrics and this documentation.' },
      {
        name: 'Webhooks',
        description: 'What the service POSTs to the URL of a webhook subscription, and what it expects back.',
      },
      {
        name: 'Secretary',
        description:
          "The membership secretary's work: import, export, adding and writing one person's record, renewals, erasure and subject access (permission manage).",
      },
    ],
    paths,
    webhooks: webhooks(),
    components: {
      schemas,
      responses: referencedFailures(paths),
      headers: HEADERS,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'mdk_ token',
          description:
            'A token from POST /keys, sent as `Authorization: Bearer <token>`. Here, paste the token ' +
            'alone (it starts with `mdk_`), without the word Bearer: the page adds it.',
        },
        basic: {
          type: 'http',
          scheme: 'basic',
          description: "The account's username and password, for POST /keys only.",
        },
      },
    },
  };
}
