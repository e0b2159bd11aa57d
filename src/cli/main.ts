import '../compile-cache';
import { callerDirectory } from './caller-directory';
import { resolveFileArguments } from './file-arguments';
import { runCli } from './run-cli';

// Entry point of `npm run cli -- <command>`. The exit code is set once output is flushed; a
// database pool closed by the command leaves nothing running, so the process ends by itself.
// Relative FILE arguments name files where the user is, even though npm runs the tool elsewhere.
const cwd = callerDirectory(process.env);
const argv = process.argv.slice(2);
runCli(cwd === process.cwd() ? argv : resolveFileArguments(argv, cwd)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
