import type { ApiKey } from '../../domain/api-key';
import type { ApiKeyRepository } from '../ports/api-key-repository';
import type { Clock } from '../ports/clock';
import type { Principal } from '../principal';

export interface ListKeysInput {
  principal: Principal;
}

/** The account's keys neither revoked nor expired, oldest first. Any valid key may ask. */
export class ListKeys {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
  ) {}

  execute({ principal }: ListKeysInput): Promise<ApiKey[]> {
    return this.keys.listActive(principal.accountId, this.clock.now());
  }
}
