import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import type { PasswordHasher } from '../../application/ports/password-hasher';

/** bcrypt through its asynchronous API only: the synchronous one would block the event loop. */
export class BcryptPasswordHasher implements PasswordHasher {
  // A hash of a random password at the same cost, so that an unknown username costs as much
  // time as a wrong password and the answer time does not reveal which usernames exist.
  private dummyHash: Promise<string> | null = null;

  constructor(private readonly cost: number) {}

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.cost);
  }

  async verify(password: string, hash: string | null): Promise<boolean> {
    if (hash === null) {
      await this.compare(password, await this.dummy());
      return false;
    }
    return this.compare(password, hash);
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= bcrypt.hash(randomBytes(32).toString('hex'), this.cost);
    return this.dummyHash;
  }

  private async compare(password: string, hash: string): Promise<boolean> {
    try {
      return await bcrypt.compare(password, hash);
    } catch {
      // A stored value that is not a bcrypt hash matches no password.
      return false;
    }
  }
}
