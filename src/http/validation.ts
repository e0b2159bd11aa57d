import { type ClassConstructor, plainToInstance } from 'class-transformer';
import { type ValidationError, validate } from 'class-validator';
import { InvalidInput } from '../domain/errors';
import { messagesFor } from './error-messages';

// Client-chosen key names appear in messages; a bound keeps an absurd key from filling the answer.
const MAX_NAME_IN_MESSAGE = 100;

export function quoteName(name: string): string {
  const shown = name.length > MAX_NAME_IN_MESSAGE ? `${name.slice(0, MAX_NAME_IN_MESSAGE)}…` : name;
  return JSON.stringify(shown);
}

/** The API name of a field: `email` at the top, `person[first_name]` one level down. */
function apiName(path: string[]): string {
  return path.length === 1
    ? path[0]
    : `${path[0]}${path
        .slice(1)
        .map((p) => `[${p}]`)
        .join('')}`;
}

function messagesOf(errors: ValidationError[], parents: string[] = []): string[] {
  return errors.flatMap((error) => {
    const path = [...parents, error.property];
    const name = apiName(path);
    const { nestedValidation, ...constraints } = error.constraints ?? {};
    if (constraints.whitelistValidation) return [`unknown key ${quoteName(name)}`];
    // One message per field: class-validator lists the innermost decorator first, so the last is
    // the outermost — the type check, which explains the others. Its generic message about nested
    // objects comes last whatever the order, and only when nothing says it better.
    const outermost = Object.values(constraints).at(-1) ?? nestedValidation;
    const own = outermost === undefined ? [] : [`${name} ${outermost}`];
    return [...own, ...messagesOf(error.children ?? [], path)];
  });
}

/**
 * Turns a plain object into a validated DTO or throws InvalidInput naming each bad field. The
 * DTOs' constraint messages are written without the field name ("must be a string"): it is added
 * here in its API spelling.
 */
export async function toValidDto<T extends object>(type: ClassConstructor<T>, plain: object): Promise<T> {
  const dto = plainToInstance(type, plain);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new InvalidInput(messagesOf(errors));
  return dto;
}

/** Refuses keys outside `known` before class-transformer, which would silently drop some of them. */
export function refuseUnknownKeys(plain: object, known: readonly string[], hint = ''): void {
  const unknown = Object.keys(plain).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    throw new InvalidInput(messagesFor(unknown, (key) => `unknown key ${quoteName(key)}${hint}`));
}
