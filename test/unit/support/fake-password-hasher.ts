import type { PasswordHasher } from '../../../src/application/ports/password-hasher';

/** A fast stand-in for bcrypt that remembers which hashes it was asked to compare against. */
export class FakePasswordHasher implements PasswordHasher {
  readonly verifiedAgainst: (string | null)[] = [];

  async hash(password: string): Promise<string> {
    return `hashed:${password}`;
  }

  async verify(password: string, hash: string | null): Promise<boolean> {
    this.verifiedAgainst.push(hash);
    return hash !== null && hash === `hashed:${password}`;
  }
}
