import { Type } from 'class-transformer';
import { IsObject, IsString, ValidateIf, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { CHAT_ID_MAX_LENGTH, NAME_MAX_LENGTH } from '../domain/person';

const STRING = { message: 'must be a string' };
const NAME_SCHEMA = {
  minLength: 1,
  maxLength: NAME_MAX_LENGTH,
  description: 'Trimmed and stored in Unicode NFC; 1 to 100 characters, no control characters.',
};

/**
 * The fields PATCH /people/:id may change, and the one list of them. Types are checked here; the
 * rules on the values (trimming, lengths, control characters) are the domain's, applied by
 * UpdatePerson.
 */
// A change of nothing is refused ("give at least one of ..."), which no decorator can check.
@JSONSchema({ additionalProperties: false, minProperties: 1 })
export class PersonChangesDto {
  /** Its name in the OpenAPI document. */
  static readonly schemaName = 'PersonChanges';

  @ValidateIf((_object, value) => value !== undefined)
  @IsString(STRING)
  @JSONSchema(NAME_SCHEMA)
  first_name?: string;

  @ValidateIf((_object, value) => value !== undefined)
  @IsString(STRING)
  @JSONSchema(NAME_SCHEMA)
  last_name?: string;

  // null, "" or white space only clears the chat_id.
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsString({ message: 'must be a string or null' })
  @JSONSchema({
    type: ['string', 'null'],
    maxLength: CHAT_ID_MAX_LENGTH,
    description:
      'null, "" or white space only clears it; unique among members (the people the API shows); stored exactly as given, so it must be in Unicode NFC; 1 to 64 characters, no control characters.',
  })
  chat_id?: string | null;
}

/**
 * The body of PATCH /people/:id in its nested form, `{"person": {...}}`. The interface document's
 * flat form (`{"person[first_name]": ...}`, also as a form) is read into this shape first.
 */
@JSONSchema({ additionalProperties: false })
export class UpdatePersonBodyDto {
  /** Its name in the OpenAPI document. */
  static readonly schemaName = 'PersonUpdateNested';

  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => PersonChangesDto)
  @JSONSchema(() => ({ $ref: `#/components/schemas/${PersonChangesDto.schemaName}` }))
  person!: PersonChangesDto;
}
