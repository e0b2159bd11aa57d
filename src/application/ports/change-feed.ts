import type { Grace } from '../../domain/grace';
import type { Person } from '../../domain/person';
import type { Change } from './change-log';

/** A change with its person as they are now (admins included); null once there is no such person. */
export interface ChangeWithPerson extends Change {
  person: Person | null;
}

export interface FeedPosition {
  /** Names this directory in its cursors, so that another directory's cursor is refused. */
  directoryId: string;
  /** Every change up to this seq has been pruned (0 when none has). */
  prunedThrough: number;
  /** The highest seq committed, or `prunedThrough` when none is kept. */
  latest: number;
}

/**
 * A change already rendered as the JSON text of its view (ChangeView, in
 * src/application/changes/change-view.ts); null when it is not to be shown.
 */
export interface RenderedChange {
  seq: number;
  json: string | null;
}

/** A page of rendered changes, read in one snapshot with its position. */
export interface RenderedPage {
  position: FeedPosition;
  /**
   * In seq order, in batches as the store reads them, so that they can be sent on while it reads
   * the rest; to be read once. A reader may stop early.
   */
  changes: AsyncIterable<RenderedChange[]>;
  /**
   * Once `changes` is read: whether the store ended the page before `limit` although more
   * changes may follow (a page read in parts, cut where a prune overtook it).
   */
  cutShort?: () => boolean;
}

/** The read side of the change log (SPEC §7). */
export interface ChangeFeed {
  /** Where the feed stands now: a cursor taken before a read of people misses nothing after it. */
  position(): Promise<FeedPosition>;
  /**
   * Committed changes with a seq above `after`, in seq order, at most `limit`, and the position,
   * both as of one moment: a prune committed meanwhile cannot hide behind an older position.
   */
  page(after: number, limit: number): Promise<{ position: FeedPosition; changes: ChangeWithPerson[] }>;
  /**
   * The same page as `page` with each change rendered as the JSON text of its view on `today`
   * (the read model, see change-view.ts), as `renderChange` renders it byte for byte: what
   * GET /changes sends, without building, mapping and serialising each person in between.
   * Answers once the position is known, and hands the changes on as the store reads them.
   */
  renderedPage(after: number, limit: number, today: string, grace: Grace): Promise<RenderedPage>;
  /**
   * Removes the changes recorded before `before` (and any older seq) and moves the pruned-through
   * mark up to the highest seq removed. Returns how many were removed.
   */
  prune(before: Date): Promise<number>;
}
