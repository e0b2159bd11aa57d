import { Forbidden } from '../domain/errors';
import type { Permission } from '../domain/permission';

/** Who is making a request: the account and the key it authenticated with. */
export interface Principal {
  accountId: number;
  keyId: number;
  permissions: Permission[];
}

export function requirePermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.includes(permission)) {
    throw new Forbidden(`this key lacks the ${permission} permission`);
  }
}
