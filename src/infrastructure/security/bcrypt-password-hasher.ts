import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import bcrypt from 'bcrypt';
import type { CheckedFor, PasswordHasher } from '../../application/ports/password-hasher';
import { PASSWORD_MAX_BYTES } from '../../domain/password';
import { PasswordCheckQueue } from './password-check-queue';

// bcrypt's own base64 alphabet: 64 characters, so a byte modulo 64 picks one without bias.
const BCRYPT_BASE64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The queue of a service: bcrypt on half the cores, and a sign-in that cannot start within 1 s refused. */
export function defaultPasswordCheckQueue(): PasswordCheckQueue {
  return new PasswordCheckQueue({
    concurrency: Math.max(1, Math.floor(availableParallelism() / 2)),
    maxWaitMs: 1000,
  });
}

/**
 * bcrypt through its asynchronous API only: the synchronous one would block the event loop. Every
 * hash and comparison, real or dummy, takes its turn in one queue (see PasswordCheckQueue), so
 * timing still reveals nothing. Comparisons are sign-ins: they wait a bounded time, one username's
 * at a time, taking turns by username and address. Hashes (an operator setting a password) wait as
 * long as needed.
 */
export class BcryptPasswordHasher implements PasswordHasher {
  // Compared against for an unknown username, so that it costs as much time as a wrong password
  // and the answer time does not reveal which usernames exist. A well-formed hash at the same
  // cost with a random salt and digest: comparing against it does all of bcrypt's work, and no
  // password matches it. Made up rather than computed, so even the first unknown username after
  // start-up costs no more than a wrong password (computing a dummy then would double that one).
  private readonly dummyHash: string;

  constructor(
    private readonly cost: number,
    private readonly queue: PasswordCheckQueue = defaultPasswordCheckQueue(),
  ) {
    const random = Array.from(randomBytes(53), (byte) => BCRYPT_BASE64[byte % 64]).join('');
    this.dummyHash = `$2b$${String(cost).padStart(2, '0')}$${random}`;
  }

  hash(password: string): Promise<string> {
    return this.queue.run(() => bcrypt.hash(password, this.cost));
  }

  async verify(password: string, hash: string | null, checkedFor?: CheckedFor): Promise<boolean> {
    // bcrypt reads only the first 72 bytes: a longer password would match the hash of its first 72.
    // No password that long can ever be set, so it is wrong; compared like an unknown user's, so
    // it takes as long as any wrong password.
    if (hash === null || Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
      await this.compare(password, this.dummyHash, checkedFor);
      return false;
    }
    return this.compare(password, hash, checkedFor);
  }

  private compare(password: string, hash: string, checkedFor: CheckedFor | undefined): Promise<boolean> {
    const turn =
      checkedFor === undefined
        ? { bounded: true }
        : {
            bounded: true,
            lane: `user:${checkedFor.username}`,
            shares: [`user:${checkedFor.username}`, `addr:${checkedFor.clientAddress}`],
          };
    // A stored value that is not a bcrypt hash matches no password.
    return this.queue.run(() => bcrypt.compare(password, hash).catch(() => false), turn);
  }
}
