import nodeModule from 'node:module';

/*
 * Imported first by both entry points (main.ts and cli/main.ts), before any library loads: from
 * Node 22.1, V8 keeps the code it compiles for each module in a cache on disk (in os.tmpdir(), or
 * where NODE_COMPILE_CACHE says), so the next start of the service or of the tool skips compiling
 * the ~600 modules it loads: about a third of the tool's start-up (docs/performance.md). Node
 * checks each entry against its source, and NODE_DISABLE_COMPILE_CACHE=1 turns the cache off.
 * Node 20 has no such cache and starts as before.
 */
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
