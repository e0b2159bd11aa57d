import type { Spool, Spools } from '../../application/ports/spool';

/** Spools in memory, for unit tests: each item is kept as a copy, as a file spool would keep it. */
export class InMemorySpools implements Spools {
  async open<T>(): Promise<Spool<T>> {
    let items: string[] = [];
    return {
      add: async (item) => {
        items.push(JSON.stringify(item));
      },
      read: async function* () {
        for (const item of items) yield JSON.parse(item) as T;
      },
      close: async () => {
        items = [];
      },
    };
  }
}
