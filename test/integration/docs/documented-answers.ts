import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { Response } from 'supertest';
import type {
  Header,
  JsonSchema,
  OpenApiDocument,
  Operation,
  Reference,
  ResponseObject,
} from '../../../src/http/openapi/openapi-types';

const BASE = 'urn:membership-directory:openapi';

/** Every operation of the document, with its path and method, in the document's order. */
export function documentedOperations(
  document: OpenApiDocument,
): { path: string; method: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );
}

function isReference(value: object): value is Reference {
  return '$ref' in value;
}

/** The object a local `#/...` pointer names in the document. */
function resolve<T extends object>(document: OpenApiDocument, value: T | Reference): T {
  if (!isReference(value)) return value;
  const parts = value.$ref.replace(/^#\//, '').split('/');
  return parts.reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], document) as T;
}

/**
 * Checks answers of the real app against the document: the status is one the operation lists,
 * its required headers are there, and the body validates against the documented schema
 * (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
export class DocumentedAnswers {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    this.ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
    this.ajv.addFormat('int32', {
      type: 'number',
      validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31,
    });
    // A JSON number holds an int64 exactly only up to 2^53 - 1; the schema's maximum says so too.
    this.ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
    this.ajv.addFormat('date-time', {
      validate: (value: string) =>
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
        !Number.isNaN(Date.parse(value)),
    });
    this.ajv.addSchema({ $id: BASE, $defs: this.pointAtDefs(document.components.schemas) });
  }

  /** The components' `#/components/schemas/X` pointers, re-aimed at the schema ajv holds. */
  private pointAtDefs<T>(value: T): T {
    return JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', `"${BASE}#/$defs/`));
  }

  operation(path: string, method: string): Operation {
    const operation = this.document.paths[path]?.[method as 'get'];
    if (operation === undefined) throw new Error(`${method.toUpperCase()} ${path} is not documented`);
    return operation;
  }

  private validator(schema: JsonSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(this.pointAtDefs(schema));
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** Throws, with every reason, unless `res` is an answer the document describes for this operation. */
  expectDocumented(res: Response, path: string, method: string): void {
    const operation = this.operation(path, method);
    const listed = operation.responses[String(res.status)];
    if (listed === undefined) {
      throw new Error(`${method.toUpperCase()} ${path} answered ${res.status}, which is not documented`);
    }
    const response = resolve<ResponseObject>(this.document, listed);
    const problems: string[] = [];
    for (const [name, reference] of Object.entries(response.headers ?? {})) {
      const header = resolve<Header>(this.document, reference);
      const value = res.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`missing header ${name}`);
        continue;
      }
      const validate = this.validator(header.schema);
      // Header values are text; an integer header is checked as the number it spells.
      const typed =
        header.schema.type === 'integer' && /^[0-9]+$/.test(String(value)) ? Number(value) : value;
      if (!validate(typed)) {
        problems.push(`header ${name}: "${value}"${this.ajv.errorsText(validate.errors, { dataVar: '' })}`);
      }
    }
    const contentType = String(res.headers['content-type'] ?? '');
    const media = Object.entries(response.content ?? {}).find(([type]) =>
      contentType.startsWith(type.split(';')[0]),
    );
    if (response.content !== undefined && media === undefined) {
      problems.push(`content type ${contentType} is not one of ${Object.keys(response.content).join(', ')}`);
    }
    if (media !== undefined && media[0] === 'application/json') {
      const validate = this.validator(media[1].schema);
      if (!validate(res.body)) problems.push(`body: ${this.ajv.errorsText(validate.errors)}`);
    }
    if (problems.length > 0) {
      throw new Error(`${method.toUpperCase()} ${path} ${res.status}: ${problems.join('; ')}`);
    }
  }

  /**
   * Every example of the document that does not validate against the schema beside it: media type
   * examples (`example` and each of `examples`), and parameter and header examples.
   */
  exampleProblems(): string[] {
    const problems: string[] = [];
    const check = (where: string, schema: JsonSchema, value: unknown) => {
      const validate = this.validator(schema);
      if (!validate(value)) problems.push(`${where}: ${this.ajv.errorsText(validate.errors)}`);
    };
    const walk = (node: unknown, where: string): void => {
      if (node === null || typeof node !== 'object') return;
      const object = node as Record<string, unknown>;
      const schema = object.schema as JsonSchema | undefined;
      if (schema !== undefined && 'example' in object) check(where, schema, object.example);
      if (schema !== undefined && object.examples !== undefined) {
        for (const [name, { value }] of Object.entries(
          object.examples as Record<string, { value: unknown }>,
        )) {
          check(`${where} example ${name}`, schema, value);
        }
      }
      for (const [key, nested] of Object.entries(object)) {
        if (key !== 'schema' && key !== 'example' && key !== 'examples') walk(nested, `${where}/${key}`);
      }
    };
    walk(this.document.paths, '#/paths');
    walk(this.document.webhooks, '#/webhooks');
    walk(this.document.components.headers, '#/components/headers');
    walk(this.document.components.responses, '#/components/responses');
    return problems;
  }

  /** Whether `value` validates against a component schema (for request examples and the like). */
  validates(schemaName: string, value: unknown): boolean {
    return this.validator({ $ref: `#/components/schemas/${schemaName}` })(value) as boolean;
  }
}
