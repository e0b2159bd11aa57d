import { isActive } from '../../domain/api-key';
import { Unauthenticated } from '../../domain/errors';
import type { ApiKeyRepository } from '../ports/api-key-repository';
import type { Clock } from '../ports/clock';
import type { TokenService } from '../ports/token-service';
import type { Principal } from '../principal';

export interface AuthenticateKeyInput {
  token: string;
}

const INVALID_KEY = 'invalid, revoked or expired API key';
// last_used_at is a hint for owners cleaning up keys, not an access log: once a minute is plenty.
const TOUCH_INTERVAL_MS = 60_000;
// Bounds the in-process memory of recent touches; entries older than the interval are useless.
const MAX_REMEMBERED_TOUCHES = 10_000;

/**
 * Turns a bearer token into a Principal. Bind it as a singleton: it remembers when each key was
 * last touched so that a burst of requests does not write last_used_at each time.
 */
export class AuthenticateKey {
  private readonly touchedAt = new Map<number, number>();

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
  ) {}

  async execute({ token }: AuthenticateKeyInput): Promise<Principal> {
    // A mistyped or made-up token is refused without touching the database.
    if (!this.tokens.isWellFormed(token)) throw new Unauthenticated(INVALID_KEY);
    const credential = await this.keys.findByTokenHash(this.tokens.hash(token));
    const now = this.clock.now();
    // Unknown, revoked and expired read alike: the answer tells an attacker nothing.
    if (credential === null || !isActive(credential.key, now)) throw new Unauthenticated(INVALID_KEY);
    if (credential.account.disabled) throw new Unauthenticated('account is disabled');

    const { key, account } = credential;
    this.touch(key.id, key.lastUsedAt, now);
    return {
      accountId: account.personId,
      keyId: key.id,
      // RevokePermission already takes a permission from the account's keys; intersecting again
      // costs nothing and keeps a key row changed by hand from exceeding its account.
      permissions: key.permissions.filter((p) => account.permissions.includes(p)),
    };
  }

  private touch(keyId: number, lastUsedAt: Date | null, now: Date): void {
    const nowMs = now.getTime();
    const stored = lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
    const remembered = this.touchedAt.get(keyId) ?? Number.NEGATIVE_INFINITY;
    if (nowMs - Math.max(stored, remembered) < TOUCH_INTERVAL_MS) return;

    if (this.touchedAt.size >= MAX_REMEMBERED_TOUCHES) this.forgetOld(nowMs);
    this.touchedAt.set(keyId, nowMs);
    // Not awaited, and failures ignored: recording use must never fail or slow a request.
    this.keys.touch(keyId, now).catch(() => undefined);
  }

  private forgetOld(nowMs: number): void {
    for (const [keyId, at] of this.touchedAt) {
      if (nowMs - at >= TOUCH_INTERVAL_MS) this.touchedAt.delete(keyId);
    }
    if (this.touchedAt.size >= MAX_REMEMBERED_TOUCHES) this.touchedAt.clear();
  }
}
