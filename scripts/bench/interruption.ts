/**
 * What must be undone if the run is interrupted (Ctrl-C): servers to stop, databases and files to
 * drop. `finally` blocks do not run when SIGINT ends the process, so they register here too.
 */
export class Interruption {
  private readonly undo = new Set<() => Promise<unknown>>();
  /** Set once SIGINT arrived: the cleanup under way, which ends the process when done. */
  cleaning: Promise<void> | null = null;

  constructor() {
    process.once('SIGINT', () => {
      process.stderr.write('\n[bench] interrupted: cleaning up…\n');
      this.cleaning = this.runAll().finally(() => process.exit(130));
    });
  }

  /** Registers `undo`; the returned function unregisters it (call it once it has run normally). */
  add(undo: () => Promise<unknown>): () => void {
    this.undo.add(undo);
    return () => this.undo.delete(undo);
  }

  private async runAll(): Promise<void> {
    // Latest first: servers stop before their database is dropped.
    for (const undo of [...this.undo].reverse()) {
      await undo().catch(() => undefined);
    }
  }
}
