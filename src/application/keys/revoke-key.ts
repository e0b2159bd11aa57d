import { type ApiKey, isActive } from '../../domain/api-key';
import { NotFound } from '../../domain/errors';
import type { Clock } from '../ports/clock';
import type { UnitOfWork } from '../ports/unit-of-work';
import type { Principal } from '../principal';

export interface RevokeKeyInput {
  principal: Principal;
  /** Another key of the same account; without it the key of this request is revoked. */
  keyId?: number;
}

export class RevokeKey {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute({ principal, keyId }: RevokeKeyInput): Promise<ApiKey> {
    const id = keyId ?? principal.keyId;
    const now = this.clock.now();
    return this.unitOfWork.run(async (tx) => {
      // Concurrent revokes of one account's keys take turns (as IssueKey does), so a key is
      // revoked, and audited, exactly once however many requests race for it.
      await tx.people.findByIdForUpdate(principal.accountId);
      const key = await tx.keys.findById(id);
      // Another account's key reads as missing, so ids of others' keys cannot be probed; a key
      // already revoked or expired is no longer one of the account's keys either.
      if (key === null || key.accountId !== principal.accountId || !isActive(key, now)) {
        throw new NotFound(`key ${id} not found`);
      }
      const revoked = await tx.keys.revoke(id, now);
      await tx.audit.record([
        {
          actorAccountId: principal.accountId,
          actorKeyId: principal.keyId,
          action: 'key.revoke',
          subjectType: 'api_key',
          subjectId: id,
          field: null,
          oldValue: null,
          newValue: null,
        },
      ]);
      return revoked;
    });
  }
}
