import type { Permission } from '../domain/permission';

/** Who is making a request: the account and the key it authenticated with. */
export interface Principal {
  accountId: number;
  keyId: number;
  permissions: Permission[];
}
