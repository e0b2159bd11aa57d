import type { UpdatePersonInput } from '../application/people/update-person';
import { InvalidInput } from '../domain/errors';
import { messagesFor } from './error-messages';
import { CHANGE_KEYS, UpdatePersonBodyDto } from './person-changes.dto';
import { quoteName, toValidDto } from './validation';

const FLAT_KEY = /^person\[([^\]]*)\]$/;
const ALL_FLAT_KEYS = CHANGE_KEYS.map((key) => `person[${key}]`);

/**
 * Reads `{"person[first_name]": ...}` (the interface document's keys, as JSON or as a form) into
 * the nested form, naming any key that is not one of them.
 */
function nestFlatKeys(body: Record<string, unknown>): { person: Record<string, unknown> } {
  const person: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    const field = FLAT_KEY.exec(key)?.[1];
    if (field !== undefined && (CHANGE_KEYS as readonly string[]).includes(field)) person[field] = value;
    else unknown.push(key);
  }
  if (unknown.length > 0) {
    throw new InvalidInput(
      messagesFor(
        unknown,
        (key) => `unknown key ${quoteName(key)}; the keys are ${ALL_FLAT_KEYS.join(', ')}`,
      ),
    );
  }
  return { person };
}

/** The changes a PATCH body asks for, in any of its three accepted forms. */
export async function readPersonChanges(body: unknown): Promise<UpdatePersonInput['changes']> {
  const plain = (body ?? {}) as Record<string, unknown>;
  const nested = 'person' in plain;
  if (nested && Object.keys(plain).length > 1) {
    throw new InvalidInput('send either a "person" object or "person[...]" keys, not both');
  }
  const shaped = nested ? plain : nestFlatKeys(plain);
  if (shaped.person !== null && typeof shaped.person === 'object' && !Array.isArray(shaped.person)) {
    // Checked before class-transformer, which would silently drop keys such as "constructor".
    const unknown = Object.keys(shaped.person).filter(
      (key) => !(CHANGE_KEYS as readonly string[]).includes(key),
    );
    if (unknown.length > 0) {
      throw new InvalidInput(
        messagesFor(
          unknown,
          (key) => `unknown key ${quoteName(`person[${key}]`)}; the keys are ${ALL_FLAT_KEYS.join(', ')}`,
        ),
      );
    }
  }
  const dto = await toValidDto(UpdatePersonBodyDto, shaped);
  return { firstName: dto.person.first_name, lastName: dto.person.last_name, chatId: dto.person.chat_id };
}
