import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Where the service and the tool keep Node's compile cache: the user's own cache directory
 * ($XDG_CACHE_HOME or ~/.cache), in membership-directory/node-compile-cache, made private. Not the
 * system's shared temporary directory, Node's default: another user of the machine could plant
 * compiled code there for the service, which holds every member's data, to run. None (no cache)
 * when the directory cannot be made or is not this user's alone.
 */
export function compileCacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  const directory = join(
    env.XDG_CACHE_HOME || join(homedir(), '.cache'),
    'membership-directory',
    'node-compile-cache',
  );
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    for (const path of [dirname(directory), directory]) {
      const stat = lstatSync(path);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0)
        return undefined;
    }
    return directory;
  } catch {
    return undefined;
  }
}
