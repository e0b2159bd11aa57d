export const PASSWORD_MIN_LENGTH = 8;
/** bcrypt ignores everything after the 72nd byte: a longer password would be silently shortened. */
export const PASSWORD_MAX_BYTES = 72;

/** Returns an error message when the password is not acceptable for an account, else null. */
export function checkPassword(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) {
    return `the password must be at least ${PASSWORD_MIN_LENGTH} characters long`;
  }
  if (new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES) {
    return `the password must be at most ${PASSWORD_MAX_BYTES} bytes long`;
  }
  return null;
}
