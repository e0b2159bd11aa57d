import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGLITE_SNAPSHOT_VARIABLE } from './pglite-snapshot';

export default function globalTeardown(): void {
  const snapshot = process.env[PGLITE_SNAPSHOT_VARIABLE];
  if (snapshot) rmSync(dirname(snapshot), { recursive: true, force: true });
}
