import type { Change } from '../../application/ports/change-log';
import type { ChangeLog, NewChange } from '../../application/ports/change-log';
import type { Clock } from '../../application/ports/clock';
import { copy, type InMemoryStore } from './in-memory-store';

/**
 * Like the database's (SqlChangeLog): inside a unit of work (`atCommit`) the changes are kept
 * until the unit ends and written only when it succeeds, so that nobody reads them earlier;
 * outside one, each `record` is written at once. Units run one after another here, so seq order
 * is commit order by itself.
 */
export class InMemoryChangeLog implements ChangeLog {
  private pending: NewChange[] = [];

  constructor(
    private readonly store: InMemoryStore,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly atCommit: boolean,
  ) {}

  async record(changes: NewChange[]): Promise<void> {
    if (this.atCommit) this.pending.push(...copy(changes));
    else this.write(copy(changes));
  }

  /** The unit of work ends: its changes are written when it succeeded, forgotten when it failed. */
  end(committed: boolean): void {
    const changes = this.pending;
    this.pending = [];
    if (committed) this.write(changes);
  }

  private write(changes: NewChange[]): void {
    const at = this.clock.now();
    for (const change of changes) {
      this.store.state.changes.push({ seq: this.store.id('change'), at: new Date(at), ...change });
    }
  }

  async listAbout(personId: number): Promise<Change[]> {
    return copy(this.store.state.changes.filter((change) => change.personId === personId));
  }
}
