import { Presets, SingleBar } from 'cli-progress';
import type { CliOutput } from './cli-io';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

// Small files finish before a bar would be worth drawing.
const MIN_TOTAL_FOR_BAR = 5000;

/** A progress bar on stderr when it is a terminal and the job is large; otherwise nothing. */
export function createProgress(stderr: CliOutput, total: number, label: string): Progress {
  if (!stderr.isTTY || total < MIN_TOTAL_FOR_BAR) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar(
    {
      stream: stderr,
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
      hideCursor: true,
      clearOnComplete: true,
    },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, count) {
      if (!started) {
        bar.start(count, done);
        started = true;
      } else {
        bar.update(done);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
