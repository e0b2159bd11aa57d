import type { KeyCredential } from '../../application/ports/api-key-repository';

/** Where revocations and account changes are reported, so that no cached credential outlives them. */
export interface CredentialChanges {
  keyRevoked(keyId: number): void;
  /** Disabled, enabled, or permissions changed: every key of the account is affected. */
  accountChanged(accountId: number): void;
}

export interface CredentialCacheOptions {
  /**
   * How long an entry may be served, counted from before the query that read it. Below one
   * second (default 800 ms, at most 1000), so that even a change no notification announced (a
   * listener connection silently cut, a row changed by hand) is honoured within the second
   * SPEC §2 allows, with room to spare.
   */
  ttlMs?: number;
  maxEntries?: number;
  /** Entries may be served without a listener: true for PGlite, which belongs to one process. */
  alwaysUsable?: boolean;
  /** Monotonic milliseconds; tests move it. */
  now?: () => number;
}

interface Entry {
  credential: KeyCredential;
  expiresAt: number;
}

/**
 * Credentials by token hash, so that a busy key costs a database lookup about once a second
 * instead of once a request (SPEC §3: "a cache hit that revocation invalidates"). Correctness rests on three rules:
 * - a change made through this process is applied here as soon as its transaction is over
 *   (CachingUnitOfWork, CachingApiKeyRepository, CachingAccountRepository);
 * - on PostgreSQL, entries are served only while a listener hears the changes other processes
 *   make (KeyEventsListener); without one every lookup goes to the database;
 * - a lookup that was running while anything was invalidated is not kept: it may have read the
 *   row from before the change.
 * Unknown tokens are never cached, so guessing cannot fill the cache.
 */
export class CredentialCache implements CredentialChanges {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly alwaysUsable: boolean;
  private readonly now: () => number;
  private generation = 0;
  private listeners = 0;

  constructor(options: CredentialCacheOptions = {}) {
    this.ttlMs = Math.min(options.ttlMs ?? 800, 1000);
    this.maxEntries = options.maxEntries ?? 10_000;
    this.alwaysUsable = options.alwaysUsable ?? false;
    this.now = options.now ?? (() => performance.now());
  }

  /** Whether entries may be served now. */
  get usable(): boolean {
    return this.alwaysUsable || this.listeners > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached credential for this hash, or what `fetch` reads (kept when that is safe). */
  async load(tokenHash: string, fetch: () => Promise<KeyCredential | null>): Promise<KeyCredential | null> {
    if (!this.usable) return fetch();
    const startedAt = this.now();
    const entry = this.entries.get(tokenHash);
    if (entry !== undefined) {
      if (entry.expiresAt > startedAt) return entry.credential;
      this.entries.delete(tokenHash);
    }
    const generation = this.generation;
    const credential = await fetch();
    if (credential !== null && generation === this.generation && this.usable) {
      this.keep(tokenHash, { credential, expiresAt: startedAt + this.ttlMs });
    }
    return credential;
  }

  keyRevoked(keyId: number): void {
    this.forget((credential) => credential.key.id === keyId);
  }

  accountChanged(accountId: number): void {
    this.forget((credential) => credential.account.personId === accountId);
  }

  /** Forgets everything, and any lookup now running: for when changes may have been missed. */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** A listener now hears every change: entries may be served (from a clean slate). */
  listenerUp(): void {
    this.clear();
    this.listeners += 1;
  }

  /** A listener lost its connection: changes may go unheard, so stop serving entries. */
  listenerDown(): void {
    this.listeners = Math.max(0, this.listeners - 1);
    this.clear();
  }

  private forget(matches: (credential: KeyCredential) => boolean): void {
    this.generation += 1;
    // A scan: changes are rare and the map is bounded, so no second index to keep in step.
    for (const [hash, entry] of this.entries) {
      if (matches(entry.credential)) this.entries.delete(hash);
    }
  }

  private keep(tokenHash: string, entry: Entry): void {
    this.entries.delete(tokenHash);
    if (this.entries.size >= this.maxEntries) {
      // Insertion order: the first key is the entry stored longest ago.
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(tokenHash, entry);
  }
}
