import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The file inside DATA_DIR that says which process has the embedded database open. */
export const LOCK_FILE = 'membership-directory.lock';

/**
 * What the lock file holds: the owner, and the socket where it serves the database to other
 * processes (the service, see serveDatabase), or null (a command-line tool, or a service still
 * starting).
 */
export interface LockOwner {
  pid: number;
  socket: string | null;
}

/**
 * The embedded database's directory cannot be used: an operator's problem, not a use case's, so
 * not one of the domain's errors; the service's start-up and the command line report it.
 */
export class DataDirectoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Another live process has the directory open: PGlite would silently lose one side's writes. */
export class DataDirectoryInUse extends DataDirectoryError {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    super(
      `data directory ${dataDir} is in use by process ${owner.pid} (the service?); ` +
        'stop it, or use DATABASE_URL for PostgreSQL',
    );
  }
}

export interface DataDirLock {
  readonly file: string;
  /** Records (or clears) the socket where this process serves the database. */
  setSocket(socket: string | null): void;
  /** Removes the lock file; safe to call twice. */
  release(): void;
}

// Like everything in the data directory: the service user's alone.
const PRIVATE_FILE = 0o600;

// Enough for two or three processes racing over one stale lock; more means something odd.
const MAX_ATTEMPTS = 10;

/** The locks this process holds, by absolute directory, so that exit removes them. */
const held = new Map<string, DataDirLock>();
let exitHookInstalled = false;

/**
 * Takes the directory for this process, or throws DataDirectoryInUse. The lock file appears
 * atomically with its content (written aside, then hard-linked into place: the link fails if the
 * file exists). A lock whose process is dead is stale and is taken over.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const directory = resolve(dataDir);
  mkdirSync(directory, { recursive: true });
  const file = join(directory, LOCK_FILE);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (createAtomically(file, { pid: process.pid, socket: null })) {
      const lock = heldLock(directory, file);
      held.set(directory, lock);
      installExitHook();
      return lock;
    }
    const raw = readRaw(file);
    if (raw === null) continue; // removed meanwhile: try again
    const owner = parseOwner(raw);
    // A lock naming this very process that it does not hold was left by an earlier process with
    // the same pid: a container's service is often pid 1 on every start.
    const ours = owner?.pid === process.pid;
    if (owner !== null && (ours ? held.has(directory) : isAlive(owner.pid))) {
      throw new DataDirectoryInUse(dataDir, owner);
    }
    removeIfUnchanged(file, raw);
  }
  throw new Error(`cannot lock the data directory ${dataDir}: its lock file keeps changing`);
}

/**
 * The live process that holds the directory, or null when none does (no lock file, or a stale
 * one). For the command line, to decide whether to connect to the running service.
 */
export function readDataDirOwner(dataDir: string): LockOwner | null {
  const raw = readRaw(join(resolve(dataDir), LOCK_FILE));
  const owner = raw === null ? null : parseOwner(raw);
  return owner !== null && owner.pid !== process.pid && isAlive(owner.pid) ? owner : null;
}

/** The lock this process holds on the directory, if any. */
export function heldDataDirLock(dataDir: string): DataDirLock | undefined {
  return held.get(resolve(dataDir));
}

function heldLock(directory: string, file: string): DataDirLock {
  let released = false;
  return {
    file,
    setSocket(socket) {
      if (released) return;
      // Written aside and renamed: a reader never sees half a file.
      const temporary = temporaryName(file);
      writeFileSync(temporary, JSON.stringify({ pid: process.pid, socket }), { mode: PRIVATE_FILE });
      renameSync(temporary, file);
    },
    release() {
      if (released) return;
      released = true;
      held.delete(directory);
      removeOwn(file);
    },
  };
}

function createAtomically(file: string, owner: LockOwner): boolean {
  const temporary = temporaryName(file);
  writeFileSync(temporary, JSON.stringify(owner), { flag: 'wx', mode: PRIVATE_FILE });
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Removes a stale lock only if it is still the one that was judged stale: it is first renamed
 * aside (only one process can win that rename), then checked. A fresh lock moved aside by a
 * process that came too late is linked back into place.
 */
function removeIfUnchanged(file: string, staleContent: string): void {
  const aside = temporaryName(file);
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if (readRaw(aside) !== staleContent) linkSync(aside, file);
  } catch {
    // Someone created a lock meanwhile: theirs stands, and the next attempt reads it.
  } finally {
    rmSync(aside, { force: true });
  }
}

function removeOwn(file: string): void {
  try {
    if (parseOwner(readRaw(file) ?? '')?.pid === process.pid) rmSync(file, { force: true });
  } catch {
    // Best effort: a lock left behind names a dead process, and the next opener takes it over.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const lock of held.values()) lock.release();
  });
}

function temporaryName(file: string): string {
  return `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
}

function readRaw(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** A lock that cannot be read names no live owner: it counts as stale. */
function parseOwner(raw: string): LockOwner | null {
  try {
    const value = JSON.parse(raw) as { pid?: unknown; socket?: unknown };
    if (!Number.isInteger(value.pid) || (value.pid as number) <= 0) return null;
    return { pid: value.pid as number, socket: typeof value.socket === 'string' ? value.socket : null };
  } catch {
    return null;
  }
}

/** EPERM: the process exists but belongs to another user; it is alive all the same. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
