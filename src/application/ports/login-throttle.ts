/**
 * The answer to a reservation: an attempt counted, or how long until one may be. A granted
 * attempt names the subjects it brought to the limit (`filled`): if it stays counted (a wrong
 * password), their lockout starts with it.
 */
export type Reservation =
  | { granted: true; attempt: string; filled: string[] }
  | { granted: false; retryAfterSeconds: number };

/**
 * Counts sign-in attempts per subject (a username, a client address) within a window, and refuses
 * further attempts once a subject has `limit` of them. An attempt is counted before its password
 * is checked, so that however many arrive at once no more than `limit` are ever checked.
 */
export interface LoginThrottle {
  /**
   * In one atomic step: when none of the subjects has `limit` attempts inside the window, counts
   * one more for each and grants it; otherwise counts nothing and answers how long to wait.
   */
  reserve(subjects: string[]): Promise<Reservation>;
  /**
   * Takes back a granted attempt that turned out not to be a failure: the password was right, or
   * it was never checked. Every wrong password stays counted.
   */
  release(subjects: string[], attempt: string): Promise<void>;
}
