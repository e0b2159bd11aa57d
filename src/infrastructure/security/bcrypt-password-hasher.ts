import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import bcrypt from 'bcrypt';
import type { PasswordHasher } from '../../application/ports/password-hasher';
import { PASSWORD_MAX_BYTES } from '../../domain/password';

// bcrypt's own base64 alphabet: 64 characters, so a byte modulo 64 picks one without bias.
const BCRYPT_BASE64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Runs at most `limit` tasks at once, in arrival order. libuv would otherwise run four bcrypt
 * hashes at a time, and a storm of POST /keys took every core from the lookups (their p99 rose
 * 2.8 times at cost 12 on two cores; with half the cores for bcrypt, 1.3 times).
 */
class Queue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}

/**
 * bcrypt through its asynchronous API only: the synchronous one would block the event loop. Every
 * hash and comparison, real or dummy, takes its turn in one queue, so timing still reveals nothing.
 */
export class BcryptPasswordHasher implements PasswordHasher {
  private readonly queue: Queue;
  // Compared against for an unknown username, so that it costs as much time as a wrong password
  // and the answer time does not reveal which usernames exist. A well-formed hash at the same
  // cost with a random salt and digest: comparing against it does all of bcrypt's work, and no
  // password matches it. Made up rather than computed, so even the first unknown username after
  // start-up costs no more than a wrong password (computing a dummy then would double that one).
  private readonly dummyHash: string;

  constructor(
    private readonly cost: number,
    concurrency = Math.max(1, Math.floor(availableParallelism() / 2)),
  ) {
    this.queue = new Queue(concurrency);
    const random = Array.from(randomBytes(53), (byte) => BCRYPT_BASE64[byte % 64]).join('');
    this.dummyHash = `$2b$${String(cost).padStart(2, '0')}$${random}`;
  }

  hash(password: string): Promise<string> {
    return this.queue.run(() => bcrypt.hash(password, this.cost));
  }

  async verify(password: string, hash: string | null): Promise<boolean> {
    // bcrypt reads only the first 72 bytes: a longer password would match the hash of its first 72.
    // No password that long can ever be set, so it is wrong; compared like an unknown user's, so
    // it takes as long as any wrong password.
    if (hash === null || Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
      await this.compare(password, this.dummyHash);
      return false;
    }
    return this.compare(password, hash);
  }

  private async compare(password: string, hash: string): Promise<boolean> {
    try {
      return await this.queue.run(() => bcrypt.compare(password, hash));
    } catch {
      // A stored value that is not a bcrypt hash matches no password.
      return false;
    }
  }
}
