import { IS_INT } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { IssueKeyBody } from '../keys-issue-body';
import { PersonChangesDto, UpdatePersonBodyDto } from '../person-changes.dto';
import { PersonFilterDto } from '../person-filter.dto';
import type { JsonSchema } from './openapi-types';

/** The DTO classes the routes validate request bodies with; each names its schema (`schemaName`). */
const DTOS = [PersonFilterDto, PersonChangesDto, UpdatePersonBodyDto, IssueKeyBody];

/**
 * The interface document's flat form of the PATCH body, `{"person[first_name]": ...}` (also sent
 * form-encoded): the same fields as PersonChanges under their bracketed names.
 */
function flatForm(changes: JsonSchema): JsonSchema {
  const fields = changes.properties as Record<string, JsonSchema>;
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

/**
 * The request body schemas, keyed by component name: what class-validator-jsonschema reads from
 * the DTOs' own decorators (their class-validator rules, and @JSONSchema for what no rule says).
 */
export function requestSchemas(): Record<string, JsonSchema> {
  const generated = validationMetadatasToSchemas({
    refPointerPrefix: '#/components/schemas/',
    schemaNameField: 'schemaName',
    // Every integer the API takes is a PostgreSQL integer: generated clients may use 32 bits.
    additionalConverters: { [IS_INT]: { type: 'integer', format: 'int32' } },
  }) as Record<string, JsonSchema>;
  const schemas = Object.fromEntries(
    DTOS.map(({ schemaName }) => {
      const schema = generated[schemaName];
      if (schema === undefined) throw new Error(`${schemaName} has no validation metadata`);
      return [schemaName, schema];
    }),
  );
  return { ...schemas, PersonUpdateFlat: flatForm(schemas.PersonChanges) };
}
