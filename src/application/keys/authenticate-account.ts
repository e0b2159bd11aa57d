import { inject, injectable } from 'inversify';
import type { Account } from '../../domain/account';
import { TooManyAttempts, Unauthenticated } from '../../domain/errors';
import type { AccountRepository } from '../ports/account-repository';
import type { LoginThrottle } from '../ports/login-throttle';
import type { PasswordHasher } from '../ports/password-hasher';
import { TYPES } from '../ports/tokens';
import { countedAddress } from './counted-address';

export interface AuthenticateAccountInput {
  username: string;
  password: string;
  /** The client's address, counted for the login throttle alongside the username. */
  clientAddress: string;
}

const WRONG_CREDENTIALS = 'wrong username or password';

/**
 * Signs in with a username and password (the Basic credentials of POST /keys) and answers the
 * account, or refuses: wrong credentials and a disabled account alike, too many failed attempts
 * apart. Nothing else about the request is looked at before it has answered.
 */
@injectable()
export class AuthenticateAccount {
  constructor(
    @inject(TYPES.AccountRepository) private readonly accounts: AccountRepository,
    @inject(TYPES.PasswordHasher) private readonly passwords: PasswordHasher,
    @inject(TYPES.LoginThrottle) private readonly throttle: LoginThrottle,
  ) {}

  async execute(input: AuthenticateAccountInput): Promise<Account> {
    const subjects = [`user:${input.username.toLowerCase()}`, `addr:${countedAddress(input.clientAddress)}`];
    // Checked before the password, so that a blocked guesser learns nothing, not even a right guess.
    const wait = await this.throttle.blockedFor(subjects);
    if (wait > 0) {
      throw new TooManyAttempts(`too many failed attempts; try again in ${wait} seconds`, wait);
    }

    const account = await this.accounts.findByUsername(input.username);
    // An unknown user is compared against a dummy hash, so the time taken does not reveal it.
    const matches = await this.passwords.verify(input.password, account?.passwordHash ?? null);
    if (account === null || !matches) {
      await this.throttle.recordFailure(subjects);
      throw new Unauthenticated(WRONG_CREDENTIALS);
    }
    if (account.disabled) throw new Unauthenticated(WRONG_CREDENTIALS);
    return account;
  }
}
