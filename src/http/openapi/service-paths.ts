import { VERSION } from '../../version';
import { DESK_ASSETS } from '../desk-files';
import { DOCS_ASSET_FILES } from '../docs.routes';
import { COMMON_HEADERS } from './headers';
import type { MediaType, ResponseObject, Paths } from './openapi-types';
import { schemaRef } from './openapi-types';
import { json, OPEN_FAILURES, responseRef } from './responses';

const SERVICE = { tags: ['Service'], security: [] };

const ok = (description: string, content: Record<string, MediaType>): ResponseObject => ({
  description,
  headers: COMMON_HEADERS,
  content,
});

/** Probes, metrics and this documentation: open to anyone who can reach the service. */
export function servicePaths(): Paths {
  return {
    '/healthz': {
      get: {
        ...SERVICE,
        operationId: 'liveness',
        summary: 'Liveness probe',
        description: 'Answers as long as the process runs, with its release; never touches the database.',
        responses: {
          200: ok('The process is up.', json(schemaRef('Health'), { status: 'ok', version: VERSION })),
          ...OPEN_FAILURES,
        },
      },
    },
    '/readyz': {
      get: {
        ...SERVICE,
        operationId: 'readiness',
        summary: 'Readiness probe',
        description:
          'Answers 200 only when the database answers, within 2 seconds, the queries requests make (a key lookup and a person lookup).',
        responses: {
          200: ok('Ready to serve.', json(schemaRef('Status'), { status: 'ok' })),
          503: responseRef('ServiceUnavailable'),
          ...OPEN_FAILURES,
        },
      },
    },
    '/metrics': {
      get: {
        ...SERVICE,
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description:
          'Requests by method, route pattern and status (http_requests_total), their latency ' +
          '(http_request_duration_seconds), the database connection pool (db_pool_*) and the ' +
          'process (CPU, memory, event loop), the build (build_info), Redis (redis_up), in the ' +
          'Prometheus text format.',
        responses: {
          200: ok('The current values.', {
            'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } },
          }),
          ...OPEN_FAILURES,
        },
      },
    },
    '/openapi.json': {
      get: {
        ...SERVICE,
        operationId: 'openApiDocument',
        summary: 'This API description',
        description:
          'The OpenAPI 3.1 document of every endpoint, generated from the validators the service uses.',
        responses: { 200: ok('The OpenAPI document.', json({ type: 'object' })), ...OPEN_FAILURES },
      },
    },
    '/docs': {
      get: {
        ...SERVICE,
        operationId: 'docsPage',
        summary: 'API reference page',
        description: 'This page: Swagger UI over /openapi.json, served by the service itself (no CDN).',
        responses: {
          200: ok('The HTML page.', { 'text/html; charset=utf-8': { schema: { type: 'string' } } }),
          ...OPEN_FAILURES,
        },
      },
    },
    '/docs/assets/{file}': {
      get: {
        ...SERVICE,
        operationId: 'docsAsset',
        summary: 'A file of the API reference page',
        description: 'The scripts, styles and icons of /docs, from the installed swagger-ui-dist package.',
        parameters: [
          {
            name: 'file',
            in: 'path',
            required: true,
            description: 'The file name.',
            schema: { type: 'string', enum: [...DOCS_ASSET_FILES] },
          },
        ],
        responses: {
          200: ok('The file.', {
            'text/css': { schema: { type: 'string' } },
            'text/javascript': { schema: { type: 'string' } },
            'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
          }),
          404: responseRef('NotFound'),
          ...OPEN_FAILURES,
        },
      },
    },
    '/desk': {
      get: {
        ...SERVICE,
        operationId: 'deskPage',
        summary: "The secretary's page",
        description:
          'The membership desk in a browser (SPEC §9): sign in with a username and password, then ' +
          'search, correct, renew, import, export and erase through this API with a key kept in the ' +
          "page's memory. Built by npm run build into dist/src/desk; 404 when it was not built.",
        responses: {
          200: ok('The HTML page.', { 'text/html; charset=utf-8': { schema: { type: 'string' } } }),
          404: responseRef('NotFound'),
          ...OPEN_FAILURES,
        },
      },
    },
    '/desk/assets/{file}': {
      get: {
        ...SERVICE,
        operationId: 'deskAsset',
        summary: "A file of the secretary's page",
        description: 'The script and the stylesheet of /desk.',
        parameters: [
          {
            name: 'file',
            in: 'path',
            required: true,
            description: 'The file name.',
            schema: { type: 'string', enum: [...DESK_ASSETS] },
          },
        ],
        responses: {
          200: ok('The file.', {
            'text/css': { schema: { type: 'string' } },
            'text/javascript': { schema: { type: 'string' } },
          }),
          404: responseRef('NotFound'),
          ...OPEN_FAILURES,
        },
      },
    },
  };
}
