import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const NAME = 'membership-directory';

/**
 * The release this build is, read once from package.json: the one place the number is written.
 * Found by walking up from here, because the file sits one level above src/ under Jest and two
 * above dist/src/ after `npm run build` (and in the Docker image, which keeps package.json).
 */
function readVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // No package.json here (or another package's): look one level up.
    }
    if (dirname(dir) === dir) throw new Error(`${NAME}'s package.json was not found above ${__dirname}`);
  }
}

export const VERSION = readVersion();
