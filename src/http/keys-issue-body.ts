import { plainToInstance } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  type ValidationError,
  validate,
} from 'class-validator';
import { KEY_NAME_MAX_LENGTH, MAX_EXPIRES_IN_DAYS } from '../domain/api-key';
import { InvalidInput } from '../domain/errors';
import { isPermission, type Permission, PERMISSIONS } from '../domain/permission';

const EXPIRES_IN_DAYS_RANGE = `expires_in_days must be a whole number from 1 to ${MAX_EXPIRES_IN_DAYS}`;

function firstUnknown(values: unknown[]): unknown {
  return values.find((value) => !isPermission(value));
}

/** The optional body of POST /keys (SPEC §2, an extension of the interface document). */
export class IssueKeyBody {
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @MaxLength(KEY_NAME_MAX_LENGTH, { message: `name must be at most ${KEY_NAME_MAX_LENGTH} characters` })
  name?: string | null;

  @IsOptional()
  @IsArray({ message: 'permissions must be an array of strings' })
  @IsString({ each: true, message: 'permissions must be an array of strings' })
  @IsIn(PERMISSIONS, {
    each: true,
    message: ({ value }) => `permissions: unknown permission ${JSON.stringify(firstUnknown(value))}`,
  })
  permissions?: Permission[] | null;

  @IsOptional()
  @IsInt({ message: EXPIRES_IN_DAYS_RANGE })
  @Min(1, { message: EXPIRES_IN_DAYS_RANGE })
  @Max(MAX_EXPIRES_IN_DAYS, { message: EXPIRES_IN_DAYS_RANGE })
  expires_in_days?: number | null;
}

const BODY_KEYS = ['name', 'permissions', 'expires_in_days'];

function messagesOf(errors: ValidationError[]): string[] {
  return errors.flatMap((error) => {
    const constraints = error.constraints ?? {};
    if (constraints.whitelistValidation) return [`unknown key "${error.property}"`];
    // One message per field. class-validator lists broken rules from the innermost decorator out,
    // so the last is the outermost: the type check, which explains the others.
    const outermost = Object.values(constraints).at(-1);
    return outermost ? [outermost] : [];
  });
}

/** No body (or an empty one) means every default; anything else must be a JSON object of known keys. */
export async function parseIssueKeyBody(body: unknown): Promise<IssueKeyBody> {
  if (body === undefined || body === null) return new IssueKeyBody();
  if (typeof body !== 'object' || Array.isArray(body))
    throw new InvalidInput('the body must be a JSON object');
  // Checked on the raw object: class-transformer silently drops keys such as "constructor" and
  // "__proto__", which whitelisting would then never see.
  const unknown = Object.keys(body).filter((key) => !BODY_KEYS.includes(key));
  if (unknown.length > 0) throw new InvalidInput(unknown.map((key) => `unknown key "${key}"`));
  const dto = plainToInstance(IssueKeyBody, body);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new InvalidInput(messagesOf(errors));
  return dto;
}
