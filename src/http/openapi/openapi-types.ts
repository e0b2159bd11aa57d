/**
 * The parts of OpenAPI 3.1 this service's document uses. Schemas are JSON Schema 2020-12 objects,
 * kept loose on purpose: they come from class-validator-jsonschema and from response-schemas.ts.
 */
export type JsonSchema = { [keyword: string]: unknown };

export interface Reference {
  $ref: string;
}

export interface Header {
  description: string;
  schema: JsonSchema;
  required?: boolean;
  example?: unknown;
}

export interface MediaType {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary: string; value: unknown }>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, MediaType>;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  description: string;
  required?: boolean;
  schema: JsonSchema;
  example?: unknown;
}

export interface RequestBody {
  description: string;
  required: boolean;
  content: Record<string, MediaType>;
}

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody;
  responses: Record<string, ResponseObject | Reference>;
}

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';

export type PathItem = Partial<Record<HttpMethod, Operation>>;

export type Paths = Record<string, PathItem>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
  paths: Paths;
  /** What the service POSTs to webhook receivers (OpenAPI 3.1). */
  webhooks: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, Header>;
    securitySchemes: Record<
      string,
      { type: 'http'; scheme: string; bearerFormat?: string; description: string }
    >;
  };
}

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
