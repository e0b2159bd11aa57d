import { forwardOrRun } from './forward-to-service';

// Entry point of `npm run cli -- <command>`. The exit code is set once output is flushed; a
// database pool closed by the command leaves nothing running, so the process ends by itself.
// While the service runs on the embedded database, the command runs inside it (see forwardOrRun).
forwardOrRun(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
