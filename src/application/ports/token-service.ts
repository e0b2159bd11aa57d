export interface IssuedToken {
  /** The full token, shown to its owner once. */
  token: string;
  /** The first characters, kept for display. */
  prefix: string;
  /** What is stored and looked up. */
  hash: string;
}

export interface TokenService {
  issue(): IssuedToken;
  /** Shape and checksum only, no I/O: a mistyped or truncated token is refused cheaply. */
  isWellFormed(token: string): boolean;
  hash(token: string): string;
  /** The display form of a stored key: its prefix and an ellipsis. */
  mask(prefix: string): string;
}
