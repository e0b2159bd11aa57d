import { existsSync } from 'node:fs';
import path from 'node:path';

/** The files of the secretary's page that the service serves, as `npm run build` writes them. */
export const DESK_PAGE = 'index.html';
export const DESK_ASSETS = ['desk.js', 'desk.css'] as const;

/**
 * The project's root, the first directory up from here holding package.json: the same from the
 * source (src/http) and from a build (dist/src/http, or a test run's build directory).
 */
export function projectRoot(from: string = __dirname): string {
  let directory = from;
  while (!existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no package.json above ${from}`);
    directory = parent;
  }
  return directory;
}

/**
 * Where `npm run build` writes the page and the service reads it: dist/src/desk, beside the
 * compiled service (tsc makes dist/src of src, esbuild dist/src/desk of src/desk), so that an
 * install of dist/src alone, such as a container image, holds it.
 */
export function deskDirectory(): string {
  return path.join(projectRoot(), 'dist', 'src', 'desk');
}
