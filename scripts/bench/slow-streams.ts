import { request } from 'node:http';
import { serveLoad, startLoad } from './load-process';
import { paths } from './paths';

/** How fast a slow client reads: a client on a modest remote link. */
const READ_BYTES_PER_SECOND = 1024 * 1024;
/** It pauses after this much, for as long as reading it should have taken. */
const READ_BURST_BYTES = 64 * 1024;
/** A refused client asks again this soon, ignoring Retry-After, as a careless client would. */
const RETRY_MS = 200;

export interface SlowStreamFigures {
  clients: number;
  /** Streams answered 200 (then read slowly). */
  served: number;
  /** Answered 429. */
  refused: number;
  /** Other statuses and broken connections. */
  failed: number;
  bytes: number;
}

export interface SlowStreams {
  /** Stops every client and resolves with what they saw. */
  stop(): Promise<SlowStreamFigures>;
}

type Outcome = 'served' | 'refused' | 'failed';

/**
 * `clients` connections that each ask for the full unpaged list with one key, again and again,
 * and read what they get slowly (1 MB/s each). The service lets a few of them stream and
 * refuses the rest; a server without limits lets them all take database connections.
 */
function runSlowStreams(url: string, token: string, clients: number): SlowStreams {
  const figures: SlowStreamFigures = { clients, served: 0, refused: 0, failed: 0, bytes: 0 };
  let stopping = false;
  const live = new Set<() => void>();

  const once = () =>
    new Promise<Outcome>((resolve) => {
      let settled = false;
      const settle = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        live.delete(abort);
        resolve(outcome);
      };
      const req = request(`${url}/people`, { agent: false, headers: { Authorization: `Bearer ${token}` } });
      const abort = () => {
        req.destroy();
        settle('served');
      };
      live.add(abort);
      req.on('error', () => settle(stopping ? 'served' : 'failed'));
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          settle(res.statusCode === 429 ? 'refused' : 'failed');
          return;
        }
        figures.served += 1;
        let burst = 0;
        res.on('data', (chunk: Buffer) => {
          figures.bytes += chunk.length;
          burst += chunk.length;
          if (burst < READ_BURST_BYTES) return;
          res.pause();
          setTimeout(() => res.resume(), (burst / READ_BYTES_PER_SECOND) * 1000);
          burst = 0;
        });
        res.on('end', () => settle('served'));
        res.on('error', () => settle(stopping ? 'served' : 'failed'));
      });
      req.end();
    });

  const client = async () => {
    while (!stopping) {
      const outcome = await once();
      if (outcome === 'refused') figures.refused += 1;
      if (outcome === 'failed') figures.failed += 1;
      if (outcome !== 'served' && !stopping) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  };
  const running = Array.from({ length: clients }, client);

  return {
    async stop() {
      stopping = true;
      for (const abort of [...live]) abort();
      await Promise.all(running);
      return figures;
    },
  };
}

/** The slow clients, in a process of their own (see startLoad). */
export function startSlowStreams(url: string, token: string, clients: number): SlowStreams {
  return startLoad<SlowStreamFigures>(
    paths.slowStreams,
    [url, token, String(clients)],
    'the slow stream clients',
  );
}

// Run by startSlowStreams: node slow-streams.js URL TOKEN CLIENTS; "stop" over IPC ends it.
if (require.main === module) {
  const [url, token, clients] = process.argv.slice(2);
  serveLoad(runSlowStreams(url, token, Number(clients)));
}
