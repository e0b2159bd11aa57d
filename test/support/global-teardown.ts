import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGLITE_SNAPSHOT_VARIABLE, RUN_BUILD_VARIABLE } from './run-variables';

export default function globalTeardown(): void {
  const snapshot = process.env[PGLITE_SNAPSHOT_VARIABLE];
  if (snapshot) rmSync(dirname(snapshot), { recursive: true, force: true });
  const build = process.env[RUN_BUILD_VARIABLE];
  if (build) rmSync(build, { recursive: true, force: true });
}
