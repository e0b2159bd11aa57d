import { IsArray, IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { KEY_NAME_MAX_LENGTH, MAX_EXPIRES_IN_DAYS } from '../domain/api-key';
import { InvalidInput } from '../domain/errors';
import { isPermission, type Permission, PERMISSIONS } from '../domain/permission';
import { toValidDto } from './validation';

const EXPIRES_IN_DAYS_RANGE = { message: `must be a whole number from 1 to ${MAX_EXPIRES_IN_DAYS}` };

// class-validator applies an `each` rule to a value that is not an array too (5, true, {}): the
// message must not assume an array, or building it throws and the request fails with a 500.
function firstUnknown(value: unknown): unknown {
  return Array.isArray(value) ? value.find((item) => !isPermission(item)) : value;
}

/**
 * The optional body of POST /keys (SPEC §2, an extension of the interface document). Types and
 * ranges are checked here, and only here; the name's text rules and whether the account holds the
 * permissions are IssueKey's to decide.
 */
@JSONSchema({ additionalProperties: false })
export class IssueKeyBody {
  /** Its name in the OpenAPI document. */
  static readonly schemaName = 'IssueKeyRequest';

  @IsOptional()
  @IsString({ message: 'must be a string' })
  // The length (in characters, not UTF-16 units) and the characters are IssueKey's to check.
  @JSONSchema({
    type: ['string', 'null'],
    maxLength: KEY_NAME_MAX_LENGTH,
    description: 'A label for the key, to tell keys apart.',
  })
  name?: string | null;

  @IsOptional()
  @IsArray({ message: 'must be an array of strings' })
  @IsString({ each: true, message: 'must be an array of strings' })
  @IsIn(PERMISSIONS, {
    each: true,
    message: ({ value }) => `has an unknown permission ${JSON.stringify(firstUnknown(value))}`,
  })
  @JSONSchema({
    type: ['array', 'null'],
    items: { type: 'string', enum: [...PERMISSIONS] },
    description: "A subset of the account's permissions; all of them when absent.",
  })
  permissions?: Permission[] | null;

  @IsOptional()
  @IsInt(EXPIRES_IN_DAYS_RANGE)
  @Min(1, EXPIRES_IN_DAYS_RANGE)
  @Max(MAX_EXPIRES_IN_DAYS, EXPIRES_IN_DAYS_RANGE)
  @JSONSchema({ type: ['integer', 'null'], description: 'Days until the key expires; never when absent.' })
  expires_in_days?: number | null;
}

/** No body (or an empty one) means every default; anything else must be a JSON object of known keys. */
export async function parseIssueKeyBody(body: unknown): Promise<IssueKeyBody> {
  if (body === undefined || body === null) return new IssueKeyBody();
  if (typeof body !== 'object' || Array.isArray(body))
    throw new InvalidInput('the body must be a JSON object');
  return toValidDto(IssueKeyBody, body);
}
