/**
 * Where an import keeps the records it has checked, to write exactly those afterwards: the file is
 * read once (SPEC §6), so a file that changes while it is read, or a pipe, cannot bring the writing
 * anything the checking never saw; and the records need not all be held in memory.
 */
export interface Spool<T> {
  /** Keeps one item; awaited, so that a slow disk holds back the reading. */
  add(item: T): Promise<void>;
  /** The items in the order they were added (after the last add). */
  read(): AsyncIterable<T>;
  /** Forgets the items (a file spool removes its file). */
  close(): Promise<void>;
}

export interface Spools {
  /** A new, empty spool, private to its caller. */
  open<T>(): Promise<Spool<T>>;
}
