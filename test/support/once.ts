import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Makes `target` once across the run's workers: the first to ask takes a lock file and builds it
 * aside, then renames it into place; the others wait for it.
 */
export async function once(target: string, make: (aside: string) => Promise<void> | void): Promise<void> {
  if (existsSync(target)) return;
  mkdirSync(dirname(target), { recursive: true });
  const lock = `${target}.lock`;
  let held: number;
  try {
    held = openSync(lock, 'wx');
  } catch {
    for (let waited = 0; !existsSync(target); waited += 50) {
      if (waited > 240_000) throw new Error(`${target} was not made within 4 minutes`);
      await sleep(50);
    }
    return;
  }
  const aside = `${target}.${process.pid}`;
  try {
    rmSync(aside, { recursive: true, force: true });
    await make(aside);
    renameSync(aside, target);
  } finally {
    closeSync(held);
    unlinkSync(lock);
    rmSync(aside, { recursive: true, force: true });
  }
}
