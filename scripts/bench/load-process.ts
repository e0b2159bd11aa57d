import { fork } from 'node:child_process';

/** A load that runs until stopped, then tells what it saw. */
export interface RunningLoad<F> {
  stop(): Promise<F>;
}

/**
 * Starts a load in a process of its own (`script` calls serveLoad): in the benchmark's process its
 * work would delay autocannon's own event loop, and the lookups' latencies would be partly the load
 * generator's. stop() asks it over IPC and resolves with its figures.
 */
export function startLoad<F>(script: string, args: string[], name: string): RunningLoad<F> {
  const child = fork(script, args, { stdio: 'inherit' });
  const figures = new Promise<F>((resolve, reject) => {
    child.once('message', (message) => resolve(message as F));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  // Reported by stop(); until then a crash must not count as an unhandled rejection.
  figures.catch(() => undefined);
  let stopped: Promise<F> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        child.send('stop');
        return figures;
      })();
      return stopped;
    },
  };
}

/** The child's side of startLoad: runs the load, and on "stop" sends its figures and exits. */
export function serveLoad<F>(load: RunningLoad<F>): void {
  process.once('message', async () => {
    const figures = await load.stop();
    process.send?.(figures, () => process.exit(0));
  });
}
