export interface FeedFigures {
  /** Changes the bench wrote after the cursor; every change the client read; the bench's among them. */
  written: number;
  read: number;
  ours: number;
  /** Every change read once, in rising seq order. */
  inOrder: boolean;
  seconds: number;
  changesPerSecond: number;
  pages: number;
  p99PageMs: number;
}

const PAGE = 1000;

interface Page {
  changes: { seq: number; type: string; by: number | null; fields: string[] | null }[];
  cursor: string;
  has_more: boolean;
}

/**
 * A client catching up with the feed: the cursor of a list of people (Changes-Cursor), then
 * `written` changes made at once, then GET /changes?after=...&limit=1000 one page after another,
 * as a client that fell behind does, until has_more is false. Timed from the first page asked to
 * the last one read.
 */
export async function followFeed(
  url: string,
  token: string,
  written: number,
  writeChanges: (count: number) => Promise<void>,
): Promise<FeedFigures> {
  const headers = { Authorization: `Bearer ${token}` };
  const list = await fetch(`${url}/people?limit=1`, { headers });
  await list.arrayBuffer();
  let cursor = list.headers.get('changes-cursor');
  if (list.status !== 200 || cursor === null)
    throw new Error(`GET /people answered ${list.status} without a cursor`);
  await writeChanges(written);

  const pageMs: number[] = [];
  let read = 0;
  let ours = 0;
  let inOrder = true;
  let last = 0;
  const started = performance.now();
  for (;;) {
    const asked = performance.now();
    const response = await fetch(`${url}/changes?after=${cursor}&limit=${PAGE}`, { headers });
    const page = (await response.json()) as Page;
    pageMs.push(performance.now() - asked);
    if (response.status !== 200)
      throw new Error(`GET /changes answered ${response.status}: ${JSON.stringify(page)}`);
    for (const change of page.changes) {
      if (change.seq <= last) inOrder = false;
      last = change.seq;
      // The bench's own (writeMemberChanges); others may come between, such as the calendar's
      // membership.started when the date turns during the run.
      if (change.type === 'person.updated' && change.by === null && change.fields?.join() === 'first_name')
        ours += 1;
    }
    read += page.changes.length;
    cursor = page.cursor;
    if (!page.has_more) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const sorted = [...pageMs].sort((a, b) => a - b);
  return {
    written,
    read,
    ours,
    inOrder,
    seconds,
    changesPerSecond: read / seconds,
    pages: pageMs.length,
    p99PageMs: Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]),
  };
}
