import { MAX_ID } from '../ids';
import type { JsonSchema } from './openapi-types';

/**
 * Every integer of this API is a PostgreSQL `integer`: signed 32 bits. Saying so lets generated
 * clients use a 32-bit type instead of a 64-bit one.
 */
export const int32 = (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', format: 'int32', ...extra });

/** An identifier: a person, contact, membership, club or key id, as answered and as taken in paths. */
export const idSchema = (extra: JsonSchema = {}): JsonSchema =>
  int32({ minimum: 1, maximum: MAX_ID, ...extra });
