import { type ClassConstructor, plainToInstance } from 'class-transformer';
import { getMetadataStorage, type ValidationError, validateSync } from 'class-validator';
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
 * The keys a DTO class declares, in the order it declares them: the one list of a body's or a
 * query's keys. With `validator`, only the keys it checks (e.g. `isBoolean`).
 */
export function keysOf(type: ClassConstructor<object>, validator?: string): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
  const keys = metadata
    .filter((rule) => validator === undefined || rule.name === validator)
    .map((rule) => rule.propertyName);
  return [...new Set(keys)];
}

// A class's keys never change once its decorators have run: read once, not on every request.
const declaredKeys = new Map<ClassConstructor<object>, readonly string[]>();

function declaredKeysOf(type: ClassConstructor<object>): readonly string[] {
  let keys = declaredKeys.get(type);
  if (keys === undefined) {
    keys = keysOf(type);
    declaredKeys.set(type, keys);
  }
  return keys;
}

export type UnknownKeyMessage = (key: string) => string;

const plainUnknownKey: UnknownKeyMessage = (key) => `unknown key ${quoteName(key)}`;

/** Refuses keys outside `known` before class-transformer, which would silently drop some of them. */
export function refuseUnknownKeys(
  plain: object,
  known: readonly string[],
  message: UnknownKeyMessage = plainUnknownKey,
): void {
  const unknown = Object.keys(plain).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new InvalidInput(messagesFor(unknown, message));
}

/**
 * Turns a plain object into a validated DTO or throws InvalidInput naming each bad field: first
 * every key the DTO does not declare (`unknownKey` words the message), then the values. The DTOs'
 * constraint messages are written without the field name ("must be a string"): it is added here
 * in its API spelling. Checked by validateSync: no rule of the DTOs is asynchronous (a test keeps
 * it so), and validate() would add a chain of promises to every request.
 */
export async function toValidDto<T extends object>(
  type: ClassConstructor<T>,
  plain: object,
  unknownKey?: UnknownKeyMessage,
): Promise<T> {
  refuseUnknownKeys(plain, declaredKeysOf(type), unknownKey);
  const dto = plainToInstance(type, plain);
  const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new InvalidInput(messagesOf(errors));
  return dto;
}

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** A DTO's fields as the code spells them: `first_name` becomes `firstName`. */
export type CodeSpelling<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] };

/**
 * The given fields of a validated DTO in the code's spelling (the API's snake_case keys turned
 * into camelCase), leaving out those that are absent: the one place where the two spellings meet
 * on the way in.
 */
export function codeSpelling<T extends object>(dto: T): CodeSpelling<T> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(dto)) {
    if (value !== undefined)
      fields[key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] = value;
  }
  return fields as CodeSpelling<T>;
}
