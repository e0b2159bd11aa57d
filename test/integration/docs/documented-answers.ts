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
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const { required } = resolve<Header>(this.document, header);
      if (required && res.headers[name.toLowerCase()] === undefined) problems.push(`missing header ${name}`);
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

  /** Whether `value` validates against a component schema (for request examples and the like). */
  validates(schemaName: string, value: unknown): boolean {
    return this.validator({ $ref: `#/components/schemas/${schemaName}` })(value) as boolean;
  }
}
