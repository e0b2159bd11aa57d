import type { Account } from '../../domain/account';
import { Overloaded, TooManyAttempts, Unauthenticated } from '../../domain/errors';
import type { AccountRepository } from '../ports/account-repository';
import type { LoginThrottle } from '../ports/login-throttle';
import type { OperatorEvents } from '../ports/operator-events';
import type { PasswordHasher } from '../ports/password-hasher';
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
export class AuthenticateAccount {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly passwords: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly events: OperatorEvents,
  ) {}

  async execute(input: AuthenticateAccountInput): Promise<Account> {
    const checkedFor = {
      username: input.username.toLowerCase(),
      clientAddress: countedAddress(input.clientAddress),
    };
    const subjects = [`user:${checkedFor.username}`, `addr:${checkedFor.clientAddress}`];
    // Counted before the password is checked, atomically: however many guesses arrive at once, at
    // most ten per username or address are ever checked, and a blocked guesser learns nothing, not
    // even that a guess was right.
    const reservation = await this.throttle.reserve(subjects);
    if (!reservation.granted) {
      const wait = reservation.retryAfterSeconds;
      throw new TooManyAttempts(`too many failed attempts; try again in ${wait} seconds`, wait);
    }

    // A wrong password stays counted; anything else gives the attempt back: the right password
    // (a user who signs in often is never locked out by it), and a check that never ran (a full
    // queue, a database failure).
    let keepCounted = false;
    try {
      const account = await this.accounts.findByUsername(input.username);
      // An unknown user is compared against a dummy hash, so the time taken does not reveal it.
      const matches = await this.passwords
        .verify(input.password, account?.passwordHash ?? null, checkedFor)
        .catch((error: unknown) => {
          if (error instanceof Overloaded) this.events.passwordCheckRefused();
          throw error;
        });
      if (account === null || !matches) {
        keepCounted = true;
        // This failure stays counted: the subjects it filled are locked out from now on.
        if (reservation.filled.length > 0) {
          this.events.signInLockoutStarted({
            ...checkedFor,
            lockedOut: subjects
              .filter((subject) => reservation.filled.includes(subject))
              .map((subject) => (subject.startsWith('user:') ? 'username' : 'client address')),
          });
        }
        throw new Unauthenticated(WRONG_CREDENTIALS);
      }
      // The right password for a disabled account is refused alike, but is no guess to count.
      if (account.disabled) throw new Unauthenticated(WRONG_CREDENTIALS);
      return account;
    } finally {
      if (!keepCounted) await this.throttle.release(subjects, reservation.attempt);
    }
  }
}
