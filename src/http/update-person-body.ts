import { InvalidInput } from '../domain/errors';
import type { PersonChanges } from '../domain/person';
import { PersonChangesDto, UpdatePersonBodyDto } from './person-changes.dto';
import { codeSpelling, keysOf, quoteName, refuseUnknownKeys, toValidDto } from './validation';

const CHANGE_KEYS = keysOf(PersonChangesDto);
const FLAT_KEYS = CHANGE_KEYS.map((key) => `person[${key}]`);
const FLAT_KEY = /^person\[([^\]]*)\]$/;

const unknownKey = (key: string) => `unknown key ${quoteName(key)}; the keys are ${FLAT_KEYS.join(', ')}`;

/** Reads `{"person[first_name]": ...}` (the interface document's keys, as JSON or as a form). */
function nestFlatKeys(body: Record<string, unknown>): Record<string, unknown> {
  refuseUnknownKeys(body, FLAT_KEYS, unknownKey);
  return Object.fromEntries(Object.entries(body).map(([key, value]) => [FLAT_KEY.exec(key)?.[1], value]));
}

/**
 * The changes a PATCH body asks for, in any of its three accepted forms, checked for their shape
 * and types: the use case gets typed values and applies the domain's rules to them.
 */
export async function readPersonChanges(body: unknown): Promise<PersonChanges> {
  const plain = (body ?? {}) as Record<string, unknown>;
  const nested = 'person' in plain;
  if (nested && Object.keys(plain).length > 1) {
    throw new InvalidInput('send either a "person" object or "person[...]" keys, not both');
  }
  const person = nested ? plain.person : nestFlatKeys(plain);
  if (person !== null && typeof person === 'object' && !Array.isArray(person)) {
    refuseUnknownKeys(person, CHANGE_KEYS, (key) => unknownKey(`person[${key}]`));
  }
  const dto = await toValidDto(UpdatePersonBodyDto, { person });
  const changes: PersonChanges = codeSpelling(dto.person);
  if (Object.keys(changes).length === 0) {
    throw new InvalidInput(`give at least one of ${CHANGE_KEYS.join(', ')}`);
  }
  return changes;
}
