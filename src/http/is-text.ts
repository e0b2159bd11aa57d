import { ValidateBy, type ValidationOptions } from 'class-validator';
import { checkText } from '../domain/text';

function problemOf(value: unknown, maxLength: number): string | null {
  if (typeof value !== 'string') return null;
  const checked = checkText(value, { maxLength });
  return 'problem' in checked ? checked.problem : null;
}

/**
 * A string property that SPEC §1's text rules accept, with at most `maxLength` characters (code
 * points, where class-validator's MaxLength counts UTF-16 units). The rules are the domain's; the
 * OpenAPI schema says `maxLength` through the property's own JSONSchema decorator.
 */
export function IsText(maxLength: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isText',
      constraints: [maxLength],
      validator: {
        validate: (value) => typeof value === 'string' && problemOf(value, maxLength) === null,
        defaultMessage: (args) => problemOf(args?.value, maxLength) ?? 'must be a string',
      },
    },
    options,
  );
}
