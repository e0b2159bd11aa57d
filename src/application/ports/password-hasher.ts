/**
 * Whose password a check is for. Checks take turns by it (SPEC §3): checks for one username never
 * run at once, and the checks whose username and address were served least recently go first, so
 * that a storm of guesses for one username or from one address does not hold up anyone else.
 */
export interface CheckedFor {
  /** Case-folded, as the lockout counts it. */
  username: string;
  /** As the lockout counts it (countedAddress). */
  clientAddress: string;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * Whether the password matches the hash. With a null hash (an unknown user) it compares against
   * a dummy hash and answers false, taking as long as a real comparison. A password longer than
   * the longest that can be set (PASSWORD_MAX_BYTES) is wrong the same way, whatever it starts with.
   * Throws Overloaded, without checking, when the check cannot start soon (within a second).
   */
  verify(password: string, hash: string | null, checkedFor?: CheckedFor): Promise<boolean>;
}
