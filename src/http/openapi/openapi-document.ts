import { HEADERS } from './headers';
import { changesPaths } from './changes-paths';
import { importsPaths } from './imports-paths';
import { keysPaths } from './keys-paths';
import type { OpenApiDocument, Paths, ResponseObject } from './openapi-types';
import { peoplePaths } from './people-paths';
import { requestSchemas } from './request-schemas';
import { failureComponents } from './responses';
import { responseSchemas } from './response-schemas';
import { servicePaths } from './service-paths';

const DESCRIPTION = `An HTTP JSON API over a club's membership database: search people, read and
update one person, and manage the API keys (bearer tokens) that call it.

- Get a key with \`POST /keys\` (Basic authentication: username and password), then send
  \`Authorization: Bearer <token>\` on every other call.
- Every error, on every route, is \`{"errors": ["message", ...]}\`.
- Request bodies are JSON (PATCH /people/{id} also takes form-encoded bodies; POST /imports also CSV), at most 16 KiB (413), and 10 MiB on POST /imports.
- An unknown route answers 404; a known route with another method answers 405 with \`Allow\`.
- Each key may make a limited number of requests a minute (setting RATE_LIMIT_PER_MINUTE, default
  1200); every answer to a bearer-authenticated request carries \`RateLimit\` and
  \`RateLimit-Policy\` (IETF draft 8), and 429 comes with \`Retry-After\`.
- Ids are 32-bit integers.
- Every response carries \`X-Request-Id\` and \`API-Version: 1.0.0\`.`;

/** The shared failure answers the operations refer to, and no other. */
function referencedFailures(paths: Paths): Record<string, ResponseObject> {
  const referenced = new Set(
    [...JSON.stringify(paths).matchAll(/"#\/components\/responses\/([^"]+)"/g)].map((match) => match[1]),
  );
  return Object.fromEntries(Object.entries(failureComponents()).filter(([name]) => referenced.has(name)));
}

/**
 * The OpenAPI 3.1 document of the service. Request schemas are generated from the class-validator
 * DTOs the routes validate with; answer schemas are checked against the mappers. Built once, at
 * start-up.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  const schemas = { ...requestSchemas(), ...responseSchemas() };
  const paths = {
    ...peoplePaths(schemas.PersonFilter),
    ...changesPaths(),
    ...keysPaths(),
    ...servicePaths(),
    ...importsPaths(),
  };
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
        name: 'Secretary',
        description: "The membership secretary's work: import and export (permission manage).",
      },
    ],
    paths,
    components: {
      schemas,
      responses: referencedFailures(paths),
      headers: HEADERS,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'mdk_ token',
          description: 'A token from POST /keys: `Authorization: Bearer mdk_...`.',
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
