import { callerDirectory } from './caller-directory';
import { forwardOrRun } from './forward-to-service';

// Entry point of `npm run cli -- <command>`. The exit code is set once output is flushed; a
// database pool closed by the command leaves nothing running, so the process ends by itself.
// While the service runs on the embedded database, the command runs inside it (see forwardOrRun).
// Relative FILE arguments name files where the user is, even though npm runs the tool elsewhere.
forwardOrRun(process.argv.slice(2), undefined, callerDirectory(process.env)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
