/**
 * Erased means gone (SPEC §8). A unit of work that erases people returns only once what held their
 * values is rewritten (see UnitOfWork.run); this catches up an erasure whose rewrite did not finish
 * (the process stopped, or the tables stayed locked), and is run by the retention job.
 */
export interface ErasurePurge {
  /** Rewrites what still holds erased values, if anything does; answers whether it did. */
  purgeErasures(): Promise<boolean>;
}
