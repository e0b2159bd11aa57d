/**
 * Who has PGlite's one session, and who waits for it, first come first served. Holding it is
 * reentrant: a holder asking again has it at once.
 */
export class SessionLock<Holder> {
  private current: Holder | null = null;
  private readonly queue: { holder: Holder; grant: () => void }[] = [];

  get holder(): Holder | null {
    return this.current;
  }

  /** Resolves once `holder` has the session. */
  acquire(holder: Holder): Promise<void> {
    if (this.current === holder) return Promise.resolve();
    if (this.current === null) {
      this.current = holder;
      return Promise.resolve();
    }
    return new Promise((grant) => this.queue.push({ holder, grant }));
  }

  /** Hands the session to the next in line; does nothing unless `holder` has it. */
  release(holder: Holder): void {
    if (this.current !== holder) return;
    const next = this.queue.shift();
    this.current = next?.holder ?? null;
    next?.grant();
  }
}
