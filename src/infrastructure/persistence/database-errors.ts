import { Conflict, DomainError, InvalidInput, Unavailable } from '../../domain/errors';

// SQLSTATEs meaning "the server is not there for you right now": connection exceptions (class 08),
// admin/crash shutdown, cannot connect now, too many connections.
const UNAVAILABLE_CODES = new Set([
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // The database does not exist (yet, or any more): nothing the client can fix.
  '3D000',
]);
// Socket-level failures reported by Node.
const UNAVAILABLE_SYSCALL_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
// pg reports these without a code.
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection timeout/i,
  /not queryable/i,
  /cannot use a pool after calling end/i,
  /pglite is closed/i,
  // TypeORM, once the database has been closed (shutdown in progress).
  /driver not connected/i,
  // ALTER DATABASE ... ALLOW_CONNECTIONS false: SQLSTATE 55000, a code too broad to match alone.
  /is not currently accepting connections/i,
];

/** Messages for the unique constraints a client can run into. */
const CONFLICT_MESSAGES: Record<string, string> = {
  people_member_chat_id_key: 'chat_id is already used by another person',
  people_member_number_key: 'member_number is already used by another person',
  people_username_key: 'username is already taken',
  api_keys_token_hash_key: 'a key with this token already exists',
  clubs_name_key: 'a club with this name already exists',
};

const UNIQUE_VIOLATION = '23505';

/** Text PostgreSQL cannot hold (a NUL character, bad encoding): the input's fault, not the server's. */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

/** The driver's error inside TypeORM's QueryFailedError, or the error itself. */
function driverError(error: unknown): { code?: unknown; constraint?: unknown; message?: unknown } | null {
  if (typeof error !== 'object' || error === null) return null;
  const inner = (error as { driverError?: unknown }).driverError;
  return (typeof inner === 'object' && inner !== null ? inner : error) as {
    code?: unknown;
    constraint?: unknown;
    message?: unknown;
  };
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof Unavailable) return true;
  const driver = driverError(error);
  if (!driver) return false;
  if (typeof driver.code === 'string') {
    if (UNAVAILABLE_CODES.has(driver.code) || UNAVAILABLE_SYSCALL_CODES.has(driver.code)) return true;
  }
  const messages = [driver.message, (error as { message?: unknown }).message].filter(
    (m): m is string => typeof m === 'string',
  );
  return messages.some((message) => UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message)));
}

function isDatabaseError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as { name?: unknown }).name === 'QueryFailedError') return true;
  const code = driverError(error)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * What a repository caller may see of a failure: domain errors pass through; a unique violation
 * becomes Conflict and an outage Unavailable; any other database error becomes a plain Error whose
 * message holds no SQL (the original stays as `cause`, for the logs). Errors that did not come from
 * the database (thrown by the work inside a unit of work, say) pass through unchanged.
 */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  if (isDatabaseUnavailable(error)) return new Unavailable('the database is unavailable');
  if (!isDatabaseError(error)) return error;
  const driver = driverError(error);
  if (driver?.code === UNIQUE_VIOLATION) {
    const constraint = typeof driver.constraint === 'string' ? driver.constraint : '';
    return new Conflict(CONFLICT_MESSAGES[constraint] ?? 'the record conflicts with an existing one');
  }
  if (typeof driver?.code === 'string' && UNSTORABLE_TEXT_CODES.has(driver.code)) {
    return new InvalidInput('the text contains characters that cannot be stored');
  }
  return new Error('the database could not complete the operation', { cause: error });
}

/** Runs a database operation and translates what it throws. */
export async function withDatabaseErrors<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw translateDatabaseError(error);
  }
}

const DEADLOCK_DETECTED = '40P01';

/**
 * Runs a transaction again (up to `attempts` in all) when PostgreSQL broke a deadlock by aborting
 * it: nothing of it was written, and the other side has gone on, so a second run finds the locks
 * free. For writes whose rows others lock in more than one order.
 */
export async function retryOnDeadlock<T>(transaction: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= attempts || driverError(error)?.code !== DEADLOCK_DETECTED) throw error;
    }
  }
}
