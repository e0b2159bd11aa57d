import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { combineLoads, type LoadFigures } from './load-runner';
import type { Row } from './report';

/** How long the bench waits, from the service's start, for the calendar's changes to arrive. */
const DELIVERY_WAIT_MS = 5 * 60_000;

// The service's today: the bench runs it with DIRECTORY_TIMEZONE=UTC.
const TODAY = "(now() AT TIME ZONE 'UTC')::date";

/**
 * The memberships in force (begun by D, ending on D or later, or open-ended) of everyone not
 * erased all end on D = yesterday, as fixed-date renewals do; nothing marked as told (not ended,
 * not lapsed). Their dates were written a month before D, as a renewal is, so that their end and
 * lapse are turns of the calendar, told when the service starts. Run while the service is stopped.
 */
export const END_ALL_YESTERDAY = `
  WITH ended AS (
    UPDATE public.memberships m
       SET end_date = ${TODAY} - 1, end_announced = false, lapse_announced = NULL,
           written_at = (${TODAY} - 31)::timestamptz
     WHERE m.start_date <= ${TODAY} - 1
       AND (m.end_date IS NULL OR m.end_date >= ${TODAY} - 1)
       AND EXISTS (SELECT 1 FROM public.people p WHERE p.id = m.person_id AND p.erased_at IS NULL)
    RETURNING 1)
  SELECT count(*)::int AS n FROM ended`;

/** END_ALL_YESTERDAY on a stopped service's embedded database, opened in this process. */
export async function endAllInPglite(dataDir: string): Promise<number> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const pglite = new PGlite(dataDir, { extensions: { pg_trgm } });
  try {
    return (await pglite.query<{ n: number }>(END_ALL_YESTERDAY)).rows[0].n;
  } finally {
    await pglite.close();
  }
}

export interface CalendarLapseFigures {
  /** Memberships made to end on D. */
  memberships: number;
  /** The lookups on a fresh process with nothing due, and on one whose calendar catches up. */
  quiet: LoadFigures;
  during: LoadFigures;
  /** The worst round's p99 while the calendar and the webhooks worked. */
  worstP99Ms: number;
  rounds: number;
  /** Changes of the feed after the cursor taken before the stop, by type. */
  changes: Record<string, number>;
  totalChanges: number;
  /** Changes sharing one transaction time: the calendar's largest batch. */
  largestBatch: number;
  /** From the service's start to the first and the last change's transaction, in seconds. */
  firstChangeS: number | null;
  lastChangeS: number | null;
  delivered: number;
  /** From the service's start to the last delivery received, in seconds. */
  deliveredS: number | null;
}

/** Answers 200 to every delivery and counts them. Loopback only. */
export class CountingReceiver {
  private readonly server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      this.received += 1;
      this.lastAt = Date.now();
      response.writeHead(200).end();
    });
  });
  received = 0;
  lastAt = 0;

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/calendar`;
  }

  close() {
    this.server.closeAllConnections();
    this.server.close();
  }
}

/** What the scenario needs of the bench: the service, its lookups and a way to change it while stopped. */
export interface CalendarLapseRig {
  url: () => string;
  token: string;
  restart: () => Promise<void>;
  stop: () => Promise<void>;
  /** Runs END_ALL_YESTERDAY on the stopped service's database; resolves with the rows changed. */
  endAll: () => Promise<number>;
  addWebhook: (url: string) => Promise<void>;
  /** One measured round of the other key's lookups; `warmUp` for the untimed first second. */
  lookups: (seed: number, warmUp?: boolean) => Promise<LoadFigures>;
}

function log(message: string) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] calendar_lapse: ${message}\n`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function changesCursor(url: string, token: string): Promise<string> {
  const response = await fetch(`${url}/people?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  const cursor = response.headers.get('changes-cursor');
  if (response.status !== 200 || cursor === null) throw new Error(`GET /people answered ${response.status}`);
  return cursor;
}

/** Reads the feed after `cursor` to its end: counts by type and the transaction times. */
async function readFeed(url: string, token: string, cursor: string) {
  const byType: Record<string, number> = {};
  const perTransaction = new Map<string, number>();
  let after = cursor;
  for (;;) {
    const response = await fetch(`${url}/changes?after=${encodeURIComponent(after)}&limit=1000`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (response.status !== 200) throw new Error(`GET /changes answered ${response.status}`);
    const page = (await response.json()) as {
      changes: { type: string; at: string }[];
      cursor: string;
      has_more: boolean;
    };
    for (const change of page.changes) {
      byType[change.type] = (byType[change.type] ?? 0) + 1;
      perTransaction.set(change.at, (perTransaction.get(change.at) ?? 0) + 1);
    }
    after = page.cursor;
    if (!page.has_more) break;
  }
  const times = [...perTransaction.keys()].map((at) => Date.parse(at)).sort((a, b) => a - b);
  return {
    byType,
    total: Object.values(byType).reduce((sum, n) => sum + n, 0),
    largestBatch: Math.max(0, ...perTransaction.values()),
    first: times[0] ?? null,
    last: times[times.length - 1] ?? null,
  };
}

/**
 * SPEC §10 "At scale": every membership in force ends on the same day D. A webhook subscription
 * to a receiver in this process; then another key's chat_id lookups on a freshly started service
 * with nothing due (quiet), and on one started with D past, whose calendar tells every end, lapse
 * and change of standing at start while the webhooks deliver them (during: rounds until the
 * deliveries stop coming, at most DELIVERY_WAIT_MS). The feed after a cursor taken before the stop
 * says what was told and in which transactions.
 */
export async function calendarLapse(rig: CalendarLapseRig): Promise<CalendarLapseFigures> {
  const receiver = new CountingReceiver();
  try {
    await rig.addWebhook(await receiver.start());
    await rig.restart();
    await rig.lookups(1051, true);
    const quiet = combineLoads([await rig.lookups(51), await rig.lookups(52)]);
    const cursor = await changesCursor(rig.url(), rig.token);
    await rig.stop();
    const memberships = await rig.endAll();
    log(`${memberships} memberships end on D (yesterday); started again with the calendar due`);
    const started = Date.now();
    await rig.restart();
    await rig.lookups(1053, true);
    const rounds: LoadFigures[] = [];
    for (let seen = -1; Date.now() - started < DELIVERY_WAIT_MS; ) {
      if (rounds.length >= 2 && receiver.received === seen) break;
      seen = receiver.received;
      rounds.push(await rig.lookups(53 + rounds.length));
    }
    log(`${rounds.length} rounds of lookups; ${receiver.received} deliveries so far; reading the feed`);
    const feed = await readFeed(rig.url(), rig.token, cursor);
    while (receiver.received < feed.total && Date.now() - started < DELIVERY_WAIT_MS) await sleep(500);
    const since = (at: number | null) => (at === null || at === 0 ? null : (at - started) / 1000);
    return {
      memberships,
      quiet,
      during: combineLoads(rounds),
      worstP99Ms: Math.max(...rounds.map((round) => round.p99Ms)),
      rounds: rounds.length,
      changes: feed.byType,
      totalChanges: feed.total,
      largestBatch: feed.largestBatch,
      firstChangeS: since(feed.first),
      lastChangeS: since(feed.last),
      delivered: receiver.received,
      deliveredS: since(receiver.lastAt),
    };
  } finally {
    receiver.close();
  }
}

export function calendarLapseRow(title: string, f: CalendarLapseFigures): Row {
  const ratio = f.during.p99Ms / f.quiet.p99Ms;
  const seconds = (s: number | null) => (s === null ? '–' : `${s.toFixed(1)} s`);
  const types = Object.entries(f.changes)
    .map(([type, n]) => `${n} ${type}`)
    .join(', ');
  const clean = [f.quiet, f.during].every((l) => l.non2xx === 0 && l.errors === 0);
  const valid = clean && f.totalChanges > 0 && f.during.requests > 0;
  return {
    scenario: title,
    service:
      `${f.memberships} memberships ended on D; quiet p50 ${f.quiet.p50Ms} ms, p99 ${f.quiet.p99Ms} ms; ` +
      `during: p50 ${f.during.p50Ms} ms, p99 ${f.during.p99Ms} ms (×${ratio.toFixed(2)}; worst of ${f.rounds} ` +
      `rounds ${f.worstP99Ms} ms); told ${f.totalChanges} changes (${types}), first at ` +
      `${seconds(f.firstChangeS)}, last at ${seconds(f.lastChangeS)} after start, largest batch ${f.largestBatch}; ` +
      `delivered ${f.delivered}/${f.totalChanges}, the last at ${seconds(f.deliveredS)}`,
    baseline: '',
    ratio,
    p99Ratio: null,
    target: 'p99 ≤ 2 × quiet p99',
    result: !valid ? 'INVALID' : ratio <= 2 ? 'PASS' : 'FAIL',
  };
}
