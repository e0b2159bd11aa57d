export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * Whether the password matches the hash. With a null hash (an unknown user) it compares against
   * a dummy hash and answers false, taking as long as a real comparison. A password longer than
   * the longest that can be set (PASSWORD_MAX_BYTES) is wrong the same way, whatever it starts with.
   */
  verify(password: string, hash: string | null): Promise<boolean>;
}
