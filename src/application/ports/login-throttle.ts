/**
 * Counts failed logins per subject (a username, a client address) within a window and refuses
 * further attempts once a subject has too many.
 */
export interface LoginThrottle {
  /** Seconds until every one of these subjects may try again; 0 when none is blocked. */
  blockedFor(subjects: string[]): Promise<number>;
  recordFailure(subjects: string[]): Promise<void>;
}
