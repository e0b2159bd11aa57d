import nodeModule from 'node:module';
import { compileCacheDirectory } from './compile-cache-directory';

/*
 * Imported first by both entry points (main.ts and cli/main.ts), before any library loads: from
 * Node 22.1, V8 keeps the code it compiles for each module in a cache on disk, so the next start of
 * the service or of the tool skips compiling the ~600 modules it loads: about a fifth of a start
 * (docs/performance.md). Node checks each entry against its source. NODE_COMPILE_CACHE=DIR (then
 * Node has enabled it itself) or NODE_DISABLE_COMPILE_CACHE=1 decide instead. Node 20 has no such
 * cache and starts as before.
 */
const enable = (nodeModule as { enableCompileCache?: (directory: string) => unknown }).enableCompileCache;
if (enable !== undefined && !process.env.NODE_COMPILE_CACHE && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  const directory = compileCacheDirectory(process.env);
  if (directory !== undefined) enable(directory);
}
