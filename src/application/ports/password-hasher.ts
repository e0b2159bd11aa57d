export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * Whether the password matches the hash. With a null hash (an unknown user) it compares against
   * a dummy hash and answers false, taking as long as a real comparison.
   */
  verify(password: string, hash: string | null): Promise<boolean>;
}
