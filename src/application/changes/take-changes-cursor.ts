import type { ChangeFeed } from '../ports/change-feed';
import { encodeCursor } from './change-cursor';

/**
 * The cursor of the newest change committed now. Taken before a list of people is read, it lets a
 * client list once and then follow /changes from it: a change committed meanwhile may be seen
 * twice (in the list and in the feed), never missed.
 *
 * Searches that arrive while a reading of the position is under way share it instead of asking
 * again: it began before their people are read, which is all the guarantee needs, and the chat
 * bot's many lookups then cost one query more between them rather than one each.
 */
export class TakeChangesCursor {
  private reading: Promise<string> | null = null;

  constructor(private readonly feed: ChangeFeed) {}

  execute(): Promise<string> {
    if (this.reading !== null) return this.reading;
    const reading = this.read().finally(() => {
      if (this.reading === reading) this.reading = null;
    });
    this.reading = reading;
    return reading;
  }

  private async read(): Promise<string> {
    const { directoryId, latest } = await this.feed.position();
    return encodeCursor({ directoryId, seq: latest });
  }
}
