/**
 * The failures a use case can report. The HTTP layer maps each kind to a status in one place;
 * nothing here knows about HTTP.
 */
export abstract class DomainError extends Error {
  readonly messages: string[];
  /** How many problems there were: more than `messages` when only the first were kept. */
  readonly total: number;

  constructor(messages: string | string[], total?: number) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(list.join('; '));
    this.messages = list;
    this.total = Math.max(total ?? list.length, list.length);
    this.name = new.target.name;
  }
}

/** The input breaks a rule: a bad field, an unknown key, a value out of range. */
export class InvalidInput extends DomainError {}

/** The thing asked for does not exist, or may not be seen (admins). */
export class NotFound extends DomainError {}

/** The change would break a uniqueness rule or a limit (a chat_id in use, too many keys). */
export class Conflict extends DomainError {}

/** No valid credentials: missing, malformed, unknown, revoked or expired, or a disabled account. */
export class Unauthenticated extends DomainError {}

/** Valid credentials that lack the permission the operation needs. */
export class Forbidden extends DomainError {}

/** A conditional change whose precondition (the version the client saw) no longer holds. */
export class PreconditionFailed extends DomainError {}

/** What was asked for existed once and is gone for good (a change-feed cursor older than what is kept). */
export class Gone extends DomainError {}

/** Too many attempts; the caller may try again after `retryAfterSeconds`. */
export class TooManyAttempts extends DomainError {
  constructor(
    messages: string | string[],
    readonly retryAfterSeconds: number,
  ) {
    super(messages);
  }
}

/** More work is waiting than can start soon; the caller may try again after `retryAfterSeconds`. */
export class Overloaded extends DomainError {
  constructor(
    messages: string | string[],
    readonly retryAfterSeconds: number,
  ) {
    super(messages);
  }
}

/** A store the use case depends on cannot be reached right now. */
export class Unavailable extends DomainError {}
