/** People each import of the loop updates: a weekly sync with a good share of the roster changed. */
export const IMPORT_LOOP_PEOPLE = 5000;

export interface ImportLoopFigures {
  /** Imports answered 200. */
  imports: number;
  /** Other statuses and broken connections. */
  failed: number;
  /** How long the imports answered 200 took, in seconds: the shortest and the longest. */
  fastestSeconds: number | null;
  slowestSeconds: number | null;
  /** People each import updated. */
  people: number;
}

export interface ImportLoop {
  /** Stops after the import in flight and resolves with what the loop saw. */
  stop(): Promise<ImportLoopFigures>;
}

/**
 * One `manage` key posting `POST /imports` again and again, each a JSON array naming
 * IMPORT_LOOP_PEOPLE people by id with a first name that differs from the one before: every
 * import updates them all (row locks, audit entries, changes), as a large weekly sync would.
 * Run in the bench's process: it waits on the server nearly all the time.
 */
export function startImportLoop(url: string, token: string, ids: number[]): ImportLoop {
  const people = ids.slice(0, IMPORT_LOOP_PEOPLE);
  const figures: ImportLoopFigures = {
    imports: 0,
    failed: 0,
    fastestSeconds: null,
    slowestSeconds: null,
    people: people.length,
  };
  const bodies = ['Ada', 'Grace'].map((name) =>
    JSON.stringify(people.map((id) => ({ id, first_name: `${name}${id % 97}` }))),
  );
  let stopping = false;
  const loop = async () => {
    for (let round = 0; !stopping; round++) {
      const started = performance.now();
      try {
        const response = await fetch(`${url}/imports`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: bodies[round % 2],
        });
        await response.arrayBuffer();
        if (response.status !== 200) {
          figures.failed += 1;
          continue;
        }
        figures.imports += 1;
        const seconds = (performance.now() - started) / 1000;
        figures.fastestSeconds = Math.min(figures.fastestSeconds ?? seconds, seconds);
        figures.slowestSeconds = Math.max(figures.slowestSeconds ?? seconds, seconds);
      } catch {
        figures.failed += 1;
      }
    }
  };
  const running = loop();
  return {
    async stop() {
      stopping = true;
      await running;
      return figures;
    },
  };
}
