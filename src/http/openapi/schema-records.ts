import type { JsonSchema } from './openapi-types';

/** Every field always present (SPEC §1), `null` where empty; nothing else. */
export function record<T>(description: string, properties: Record<keyof T & string, JsonSchema>): JsonSchema {
  return {
    type: 'object',
    description,
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

/** A field that may be null, of this type. */
export const nullable = (type: string, description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: [type, 'null'],
  description,
  ...extra,
});
