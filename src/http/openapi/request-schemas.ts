import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { IssueKeyBody } from '../keys-issue-body';
import { PersonChangesDto, UpdatePersonBodyDto } from '../person-changes.dto';
import { PersonFilterDto } from '../person-filter.dto';
import type { JsonSchema } from './openapi-types';

const SCHEMAS_PREFIX = '#/components/schemas/';

type DtoClass = new () => object;

// The names the API reference shows, for the DTO classes the routes validate with.
const DTO_NAMES = new Map<DtoClass, string>([
  [PersonFilterDto, 'PersonFilter'],
  [PersonChangesDto, 'PersonChanges'],
  [UpdatePersonBodyDto, 'PersonUpdateNested'],
  [IssueKeyBody, 'IssueKeyRequest'],
]);

const apiNameOf = new Map([...DTO_NAMES].map(([dto, name]) => [dto.name, name]));

/** Points `$ref`s at the API names, and drops the `type` the generator puts beside a `$ref`. */
function renameRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renameRefs);
  if (value === null || typeof value !== 'object') return value;
  const schema = value as JsonSchema;
  if (typeof schema.$ref === 'string') {
    const className = schema.$ref.slice(SCHEMAS_PREFIX.length);
    const name = apiNameOf.get(className);
    if (name === undefined) throw new Error(`no API name for the schema of ${className}`);
    const { $ref: _ref, type: _type, ...rest } = schema;
    return { $ref: `${SCHEMAS_PREFIX}${name}`, ...rest };
  }
  return Object.fromEntries(Object.entries(schema).map(([key, nested]) => [key, renameRefs(nested)]));
}

/** The generator knows @IsInt only as `integer`; every integer the API takes is an int32. */
function withIntegerFormat(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  const isInteger = (type: unknown) =>
    type === 'integer' || (Array.isArray(type) && type.includes('integer'));
  return {
    ...schema,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [
        name,
        isInteger(property.type) && property.format === undefined
          ? { ...property, format: 'int32' }
          : property,
      ]),
    ),
  };
}

function fromDto(dto: DtoClass): JsonSchema {
  const generated = targetConstructorToSchema(dto, { refPointerPrefix: SCHEMAS_PREFIX }) as JsonSchema;
  if (generated.properties === undefined) throw new Error(`${dto.name} has no validation metadata`);
  // toValidDto validates with forbidNonWhitelisted, and every body reader refuses unknown keys
  // before it: no DTO accepts a key it does not declare.
  return { ...withIntegerFormat(renameRefs(generated) as JsonSchema), additionalProperties: false };
}

function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  return schema.properties as Record<string, JsonSchema>;
}

/**
 * The interface document's flat form of the PATCH body, `{"person[first_name]": ...}` (also sent
 * form-encoded): the same fields as PersonChanges under their bracketed names.
 */
function flatForm(changes: JsonSchema): JsonSchema {
  const fields = propertiesOf(changes);
  return {
    type: 'object',
    description:
      'The interface document\'s form: keys are literally "person[first_name]", "person[last_name]" ' +
      'and "person[chat_id]". At least one is required.',
    properties: Object.fromEntries(Object.entries(fields).map(([key, field]) => [`person[${key}]`, field])),
    additionalProperties: false,
    minProperties: 1,
  };
}

/** The request body schemas, keyed by component name, generated from the DTOs the routes validate with. */
export function requestSchemas(): Record<string, JsonSchema> {
  const schemas = Object.fromEntries([...DTO_NAMES].map(([dto, name]) => [name, fromDto(dto)]));
  // A change of nothing is refused ("give at least one of ..."); the DTO cannot say so.
  schemas.PersonChanges = { ...schemas.PersonChanges, minProperties: 1 };
  schemas.PersonUpdateFlat = flatForm(schemas.PersonChanges);
  return schemas;
}
