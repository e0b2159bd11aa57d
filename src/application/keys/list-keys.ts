import { inject, injectable } from 'inversify';
import type { ApiKey } from '../../domain/api-key';
import type { ApiKeyRepository } from '../ports/api-key-repository';
import type { Clock } from '../ports/clock';
import { TYPES } from '../ports/tokens';
import type { Principal } from '../principal';

export interface ListKeysInput {
  principal: Principal;
}

/** The account's keys neither revoked nor expired, oldest first. Any valid key may ask. */
@injectable()
export class ListKeys {
  constructor(
    @inject(TYPES.ApiKeyRepository) private readonly keys: ApiKeyRepository,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  execute({ principal }: ListKeysInput): Promise<ApiKey[]> {
    return this.keys.listActive(principal.accountId, this.clock.now());
  }
}
