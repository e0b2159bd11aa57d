import { DESK_ASSETS } from '../desk-files';
import { DOCS_ASSET_FILES } from '../docs.routes';
import { type OperationSpec, operation } from './operation';
import type { Operation, Paths } from './openapi-types';
import { schemaRef } from './openapi-types';
import { answer, json } from './responses';

const open = (fields: Omit<OperationSpec, 'tags' | 'access'>): Operation =>
  operation({ ...fields, tags: ['Service'], access: 'open' });

/** Probes, metrics and this documentation: open to anyone who can reach the service. */
export function servicePaths(): Paths {
  return {
    '/healthz': {
      get: open({
        operationId: 'liveness',
        summary: 'Liveness probe',
        description: 'Answers as long as the process runs; never touches the database.',
        responses: { 200: answer('The process is up.', json(schemaRef('Status'), { status: 'ok' })) },
      }),
    },
    '/readyz': {
      get: open({
        operationId: 'readiness',
        summary: 'Readiness probe',
        description:
          'Answers 200 only when the database answers, within 2 seconds, the queries requests make (a key lookup and a person lookup).',
        responses: { 200: answer('Ready to serve.', json(schemaRef('Status'), { status: 'ok' })) },
        errors: [503],
      }),
    },
    '/metrics': {
      get: open({
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description:
          'Requests by method, route pattern and status (http_requests_total), their latency ' +
          '(http_request_duration_seconds), the database connection pool (db_pool_*) and the ' +
          'process (CPU, memory, event loop), in the Prometheus text format.',
        responses: {
          200: answer('The current values.', {
            'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } },
          }),
        },
      }),
    },
    '/openapi.json': {
      get: open({
        operationId: 'openApiDocument',
        summary: 'This API description',
        description:
          'The OpenAPI 3.1 document of every endpoint, generated from the validators the service uses.',
        responses: { 200: answer('The OpenAPI document.', json({ type: 'object' })) },
      }),
    },
    '/docs': {
      get: open({
        operationId: 'docsPage',
        summary: 'API reference page',
        description: 'This page: Swagger UI over /openapi.json, served by the service itself (no CDN).',
        responses: {
          200: answer('The HTML page.', { 'text/html; charset=utf-8': { schema: { type: 'string' } } }),
        },
      }),
    },
    '/docs/assets/{file}': {
      get: open({
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
          200: answer('The file.', {
            'text/css': { schema: { type: 'string' } },
            'text/javascript': { schema: { type: 'string' } },
            'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
          }),
        },
        errors: [404],
      }),
    },
    '/desk': {
      get: open({
        operationId: 'deskPage',
        summary: "The secretary's page",
        description:
          'The membership desk in a browser (SPEC §9): sign in with a username and password, then ' +
          'search, correct, renew, import, export and erase through this API with a key kept in the ' +
          "page's memory. Built by npm run build into dist/src/desk; 404 when it was not built.",
        responses: {
          200: answer('The HTML page.', { 'text/html; charset=utf-8': { schema: { type: 'string' } } }),
        },
        errors: [404],
      }),
    },
    '/desk/assets/{file}': {
      get: open({
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
          200: answer('The file.', {
            'text/css': { schema: { type: 'string' } },
            'text/javascript': { schema: { type: 'string' } },
          }),
        },
        errors: [404],
      }),
    },
  };
}
