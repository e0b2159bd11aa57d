/**
 * The directory the user ran the tool from. `npm run cli` runs it in the project's folder, not
 * where the user was; npm says where that was in INIT_CWD. Only for the `cli` script: INIT_CWD
 * is inherited by everything an npm script starts, where it means something else.
 */
export function callerDirectory(env: Record<string, string | undefined>, cwd = process.cwd()): string {
  const initCwd = env.INIT_CWD?.trim();
  return env.npm_lifecycle_event === 'cli' && initCwd ? initCwd : cwd;
}
