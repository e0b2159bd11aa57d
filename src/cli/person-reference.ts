import type { PersonReference } from '../application/people/identify-person';
import { UsageError } from './cli-errors';
import type { OptionSpec } from './command';
import { parsePositiveInteger } from './parse-values';

/** The option that names a person by the society's member number, where an ID would go. */
export const MEMBER_NUMBER_OPTION: Record<string, OptionSpec> = {
  'member-number': {
    type: 'string',
    value: 'N',
    description: 'the person with member number N, instead of an ID',
  },
};

/**
 * The person an ID argument or --member-number names: exactly one of them (undefined when
 * neither is given, for the caller to decide); both, or a blank member number, is wrong usage.
 */
export function personReference(
  id: string | undefined,
  memberNumber: string | undefined,
  command: string,
): PersonReference | undefined {
  if (memberNumber === undefined) {
    return id === undefined ? undefined : { id: parsePositiveInteger(id, 'ID', command) };
  }
  if (id !== undefined) throw new UsageError('give either an ID or --member-number, not both', command);
  const trimmed = memberNumber.trim();
  if (trimmed === '')
    throw new UsageError('--member-number takes a member number, not an empty value', command);
  return { memberNumber: trimmed };
}

/** How a person is named in the tool's lines: "person 12" or "member NA-2004 (person 12)". */
export function describeReference(reference: PersonReference, id: number): string {
  return 'memberNumber' in reference ? `member ${reference.memberNumber} (person ${id})` : `person ${id}`;
}
