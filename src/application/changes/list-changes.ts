import type { Grace } from '../../domain/grace';
import { Gone, InvalidInput } from '../../domain/errors';
import { checkPageLimit } from '../page-limit';
import type { ChangeFeed } from '../ports/change-feed';
import type { Clock } from '../ports/clock';
import { decodeCursor, encodeCursor } from './change-cursor';

export const DEFAULT_CHANGES_LIMIT = 100;

export interface ListChangesInput {
  /** The cursor a previous answer (or GET /people's Changes-Cursor) gave; absent: from the oldest kept. */
  after?: string;
  limit?: number;
}

export interface ListChangesOutput {
  /**
   * The changes to show, in seq order, each the JSON text of its ChangeView (see change-view.ts):
   * its person as they are now, null once they are gone (erased); admins' changes left out. In
   * batches as the store reads them, so that they can be sent while it reads on; to be read once.
   */
  changes: AsyncIterable<string[]>;
  /** Where to go on from and whether more wait: known once `changes` has been read to its end. */
  end(): ChangePageEnd;
}

export interface ChangePageEnd {
  /** The last change read, or the same cursor when there was nothing new. */
  cursor: string;
  hasMore: boolean;
}

/** Who may read is decided before this runs (the key's `read` permission, at the edge). */
export class ListChanges {
  constructor(
    private readonly feed: ChangeFeed,
    private readonly clock: Clock,
    private readonly grace: Grace,
  ) {}

  async execute({ after, limit = DEFAULT_CHANGES_LIMIT }: ListChangesInput): Promise<ListChangesOutput> {
    checkPageLimit(limit);
    const cursor = after === undefined ? null : decodeCursor(after);
    // One more than asked tells whether more are waiting. Rendered by the store: the page is
    // passed on as text, not built, mapped and serialised again (the read model).
    const { position, changes, cutShort } = await this.feed.renderedPage(
      cursor?.seq ?? 0,
      limit + 1,
      this.clock.today(),
      this.grace,
    );
    if (cursor !== null) {
      if (cursor.directoryId !== position.directoryId || cursor.seq > position.latest) {
        throw new InvalidInput(
          'after is a cursor of another directory: use a cursor this directory gave you',
        );
      }
      if (cursor.seq < position.prunedThrough) {
        throw new Gone(
          'after is older than the changes kept: list /people again (its Changes-Cursor header is where to follow from)',
        );
      }
    }
    const page = { read: 0, seq: cursor?.seq ?? position.prunedThrough, hasMore: false, finished: false };
    async function* shown(): AsyncGenerator<string[]> {
      for await (const batch of changes) {
        const texts: string[] = [];
        for (const change of batch) {
          if (page.read === limit) {
            page.hasMore = true;
            continue;
          }
          // The cursor moves past admins' changes too: they are read, only never shown.
          page.read += 1;
          page.seq = change.seq;
          if (change.json !== null) texts.push(change.json);
        }
        if (texts.length > 0) yield texts;
      }
      if (cutShort?.()) page.hasMore = true;
      page.finished = true;
    }
    return {
      changes: shown(),
      end: () => {
        if (!page.finished) throw new Error('the page has not been read to its end');
        return {
          cursor: encodeCursor({ directoryId: position.directoryId, seq: page.seq }),
          hasMore: page.hasMore,
        };
      },
    };
  }
}
