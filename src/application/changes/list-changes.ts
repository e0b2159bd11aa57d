import { inject, injectable } from 'inversify';
import { Gone, InvalidInput } from '../../domain/errors';
import { isVisible, type Person } from '../../domain/person';
import type { Change, ChangeFeed } from '../ports/change-feed';
import type { Clock } from '../ports/clock';
import { TYPES } from '../ports/tokens';
import { decodeCursor, encodeCursor } from './change-cursor';

export const DEFAULT_CHANGES_LIMIT = 100;
export const MAX_CHANGES_LIMIT = 1000;

export interface ListChangesInput {
  /** The cursor a previous answer (or GET /people's Changes-Cursor) gave; absent: from the oldest kept. */
  after?: string;
  limit?: number;
}

export interface ListChangesOutput {
  /** Decides which memberships of the people shown are current. */
  today: string;
  /** Each with its person as they are now, null once they are gone (erased). */
  changes: (Change & { person: Person | null })[];
  /** Where to go on from: the last change read, or the same cursor when there was nothing new. */
  cursor: string;
  hasMore: boolean;
}

/** Who may read is decided before this runs (the key's `read` permission, at the edge). */
@injectable()
export class ListChanges {
  constructor(
    @inject(TYPES.ChangeFeed) private readonly feed: ChangeFeed,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  async execute({ after, limit = DEFAULT_CHANGES_LIMIT }: ListChangesInput): Promise<ListChangesOutput> {
    if (!(Number.isInteger(limit) && limit >= 1 && limit <= MAX_CHANGES_LIMIT)) {
      throw new InvalidInput(`limit must be a whole number from 1 to ${MAX_CHANGES_LIMIT}`);
    }
    const cursor = after === undefined ? null : decodeCursor(after);
    // One more than asked tells whether more are waiting.
    const { position, changes } = await this.feed.page(cursor?.seq ?? 0, limit + 1);
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
    const read = changes.slice(0, limit);
    // The cursor moves past admins' changes too: they are read, only never shown.
    const seq = read.length > 0 ? read[read.length - 1].seq : (cursor?.seq ?? position.prunedThrough);
    return {
      today: this.clock.today(),
      changes: read
        .filter((change) => change.person?.role !== 'admin')
        .map(({ person, ...change }) => ({
          ...change,
          person: person !== null && isVisible(person) ? person : null,
        })),
      cursor: encodeCursor({ directoryId: position.directoryId, seq }),
      hasMore: changes.length > limit,
    };
  }
}
