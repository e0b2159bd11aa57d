import { renderChange } from '../../application/changes/change-view';
import type { Grace } from '../../domain/grace';
import type {
  ChangeFeed,
  ChangeWithPerson,
  FeedPosition,
  RenderedPage,
} from '../../application/ports/change-feed';
import { copy, type InMemoryStore, copyPerson } from './in-memory-store';

async function* oneBatch<T>(rows: T[]): AsyncGenerator<T[]> {
  yield rows;
}

export class InMemoryChangeFeed implements ChangeFeed {
  constructor(private readonly store: InMemoryStore) {}

  async position(): Promise<FeedPosition> {
    const { changes, directory } = this.store.state;
    const newest = changes.length > 0 ? changes[changes.length - 1].seq : 0;
    return {
      directoryId: directory.id,
      prunedThrough: directory.changesPrunedThrough,
      latest: Math.max(newest, directory.changesPrunedThrough),
    };
  }

  async page(after: number, limit: number): Promise<{ position: FeedPosition; changes: ChangeWithPerson[] }> {
    const { people, changes } = this.store.state;
    const read = changes.filter((change) => change.seq > after).slice(0, limit);
    return {
      position: await this.position(),
      changes: read.map((change) => {
        const person = people.get(change.personId);
        return { ...copy(change), person: person === undefined ? null : copyPerson(person) };
      }),
    };
  }

  async renderedPage(after: number, limit: number, today: string, grace: Grace): Promise<RenderedPage> {
    const { position, changes } = await this.page(after, limit);
    return { position, changes: oneBatch(changes.map((change) => renderChange(change, today, grace))) };
  }

  async prune(before: Date): Promise<number> {
    const { state } = this.store;
    const old = state.changes.filter((change) => change.at.getTime() < before.getTime());
    if (old.length === 0) return 0;
    const cut = Math.max(...old.map((change) => change.seq));
    const kept = state.changes.filter((change) => change.seq > cut);
    const removed = state.changes.length - kept.length;
    state.changes = kept;
    state.directory.changesPrunedThrough = Math.max(state.directory.changesPrunedThrough, cut);
    return removed;
  }
}
