import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface OutsideProgram {
  /** `it` when the program is installed or on CI; `it.skip` otherwise. */
  it: jest.It;
  /** The program's path; on CI without it, an error saying what to install. */
  path(): string;
}

function onPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/**
 * A program that is no dependency of ours (python3, Gnumeric's ssconvert), which some tests read our
 * files with. A newcomer's `npm test` on a machine with only Node skips those tests; CI (CI=true)
 * runs them, and fails them naming the package when the program is missing, so that they are never
 * skipped there unnoticed.
 */
export function outsideProgram(name: string, install: string): OutsideProgram {
  const found = onPath(name);
  return {
    it: found !== undefined || process.env.CI === 'true' ? it : it.skip,
    path: () => {
      if (found === undefined)
        throw new Error(`${name} is not installed, and CI=true runs this test: ${install}`);
      return found;
    },
  };
}
