import { serveLoad, startLoad } from './load-process';
import { paths } from './paths';

/** What the looping key asks for: the largest pages of the people search, or of the change feed. */
export type PageKind = 'people' | 'changes';

export interface PageLoopFigures {
  loops: number;
  /** Pages answered 200 and read whole. */
  pages: number;
  /** Answered 429 (the key's own queue full): retried at once, as a careless client would. */
  refused: number;
  /** Other statuses and broken connections. */
  failed: number;
}

export interface PageLoops {
  /** Stops every loop and resolves with what they saw. */
  stop(): Promise<PageLoopFigures>;
}

/**
 * `loops` clients of one key, each asking for a page of 1000 again and again as fast as it is
 * answered: people pages from a random start, or the change feed from its oldest change onwards
 * (from the start again when it runs out). Every request is within the key's rate limit as the
 * bench sets it: the load is legitimate, only large.
 */
function runPageLoops(url: string, token: string, kind: PageKind, loops: number, maxId: number): PageLoops {
  const figures: PageLoopFigures = { loops, pages: 0, refused: 0, failed: 0 };
  const controller = new AbortController();
  let stopping = false;
  const headers = { Authorization: `Bearer ${token}` };

  const loop = async (index: number) => {
    let cursor: string | undefined;
    let seed = index * 7919 + 1;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    while (!stopping) {
      const path =
        kind === 'people'
          ? `/people?limit=1000&after=${Math.floor(random() * maxId)}`
          : `/changes?limit=1000${cursor === undefined ? '' : `&after=${encodeURIComponent(cursor)}`}`;
      try {
        const response = await fetch(`${url}${path}`, { headers, signal: controller.signal });
        const text = await response.text();
        if (response.status === 200) {
          figures.pages += 1;
          if (kind === 'changes') {
            const page = JSON.parse(text) as { cursor: string; has_more: boolean };
            cursor = page.has_more ? page.cursor : undefined;
          }
        } else if (response.status === 429) figures.refused += 1;
        else figures.failed += 1;
      } catch {
        if (!stopping) figures.failed += 1;
      }
    }
  };
  const running = Array.from({ length: loops }, (_, index) => loop(index));
  return {
    async stop() {
      stopping = true;
      controller.abort();
      await Promise.all(running);
      return figures;
    },
  };
}

/** The loops, in a process of their own (see startLoad). */
export function startPageLoops(
  url: string,
  token: string,
  kind: PageKind,
  loops: number,
  maxId: number,
): PageLoops {
  return startLoad<PageLoopFigures>(
    paths.pageLoops,
    [url, token, kind, String(loops), String(maxId)],
    'the page loops',
  );
}

// Run by startPageLoops: node page-loops.js URL TOKEN KIND LOOPS MAX_ID; "stop" over IPC ends it.
if (require.main === module) {
  const [url, token, kind, loops, maxId] = process.argv.slice(2);
  serveLoad(runPageLoops(url, token, kind as PageKind, Number(loops), Number(maxId)));
}
