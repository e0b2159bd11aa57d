import { PreconditionFailed } from '../../domain/errors';

/**
 * If-Match on a person: `expected` lists the versions the client will accept (undefined: any); a
 * change is refused when none of them is the current one, and always when the list is empty.
 */
export function checkPersonPrecondition(id: number, current: number, expected: number[] | undefined): void {
  if (expected === undefined || expected.includes(current)) return;
  throw new PreconditionFailed(
    expected.length === 0
      ? `the precondition names no version of person ${id}`
      : `person ${id} has changed since the version you read; read it again`,
  );
}
