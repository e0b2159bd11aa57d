import { IsBoolean, IsIn, IsString, ValidateBy, ValidateIf } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { FILTER_STRING_MAX_LENGTH } from '../domain/person-filter';
import { parseStandings, STANDINGS } from '../domain/standing';
import { IsCalendarDate } from './is-calendar-date';
import { IsText } from './is-text';

// Decorators are listed type check first: for a value of the wrong type only its message is shown.
// Absent means "no filter on this field"; null is a value, and not a valid one.
const unlessAbsent = () => ValidateIf((_object, value) => value !== undefined);

const STRING = { message: 'must be a string' };
const BOOLEAN = { message: 'must be true or false' };
// maxLength in JSON Schema counts characters (code points), as IsText does.
const EMAIL = {
  maxLength: FILTER_STRING_MAX_LENGTH,
  description: "Case-insensitive exact match against any of the person's email contacts.",
};
const SUBSTRING = {
  maxLength: FILTER_STRING_MAX_LENGTH,
  description: 'Case-insensitive substring match; %, _ and \\ match themselves.',
};
const STANDING_LIST = `must be one of ${STANDINGS.join(', ')}, or several of them separated by commas`;

/** A standing, or several separated by commas (the same text in a query string and in a body). */
const IsStandingList = () =>
  ValidateBy({
    name: 'isStandingList',
    validator: {
      validate: (value) => typeof value === 'string' && parseStandings(value) !== null,
      defaultMessage: () => STANDING_LIST,
    },
  });

const EXACT = { maxLength: FILTER_STRING_MAX_LENGTH, description: 'Exact, case-sensitive match.' };

/**
 * PersonFilter as the API spells it: the JSON body of GET /people and POST /people/search, or the
 * query string of GET /people. The one description of the filter; the OpenAPI schema comes from it.
 */
@JSONSchema({ additionalProperties: false })
export class PersonFilterDto {
  /** Its name in the OpenAPI document. */
  static readonly schemaName = 'PersonFilter';

  @unlessAbsent()
  @IsString(STRING)
  @IsText(FILTER_STRING_MAX_LENGTH)
  @JSONSchema(EMAIL)
  email?: string;

  @unlessAbsent()
  @IsString(STRING)
  @IsText(FILTER_STRING_MAX_LENGTH)
  @JSONSchema(SUBSTRING)
  first_name?: string;

  @unlessAbsent()
  @IsString(STRING)
  @IsText(FILTER_STRING_MAX_LENGTH)
  @JSONSchema(SUBSTRING)
  last_name?: string;

  @unlessAbsent()
  @IsString(STRING)
  @IsText(FILTER_STRING_MAX_LENGTH)
  @JSONSchema(EXACT)
  chat_id?: string;

  @unlessAbsent()
  @IsString(STRING)
  @IsText(FILTER_STRING_MAX_LENGTH)
  @JSONSchema({ ...EXACT, description: "Exact, case-sensitive match of the society's membership number." })
  member_number?: string;

  @unlessAbsent()
  @IsIn(['yes', 'no'], { message: 'must be "yes" or "no"' })
  @JSONSchema({ description: 'yes: people with at least one current membership; no: people with none.' })
  active?: 'yes' | 'no';

  @unlessAbsent()
  @IsBoolean(BOOLEAN)
  @JSONSchema({ description: 'true: people whose chat_id is set; false: people whose chat_id is not set.' })
  has_chat?: boolean;

  @unlessAbsent()
  @IsBoolean(BOOLEAN)
  @JSONSchema({
    description: 'true: people whose planner_id is set; false: people whose planner_id is not set.',
  })
  has_planner?: boolean;

  @unlessAbsent()
  @IsString(STRING)
  @IsCalendarDate()
  @JSONSchema({
    format: 'date',
    description:
      'Renewals, a date YYYY-MM-DD: people who are current today and would not be current on the day ' +
      'after this date, by their memberships as recorded (a renewal already recorded, a membership ' +
      'covering the day after, takes them off the list).',
    examples: ['2026-06-30'],
  })
  ending_before?: string;

  @unlessAbsent()
  @IsString(STRING)
  @IsStandingList()
  @JSONSchema({
    maxLength: FILTER_STRING_MAX_LENGTH,
    pattern: `^ *(${STANDINGS.join('|')}) *(, *(${STANDINGS.join('|')}) *)*$`,
    description:
      'People whose standing is this one, or one of these separated by commas (current,grace): current, ' +
      'grace (after an end date, within its grace days), pending (a membership yet to start), lapsed, none ' +
      '(no membership). See Person.standing.',
    examples: ['grace', 'current,grace'],
  })
  standing?: string;

  @unlessAbsent()
  @IsBoolean(BOOLEAN)
  @JSONSchema({ description: 'true: people whose standing is current or grace; false: any other standing.' })
  in_good_standing?: boolean;
}
