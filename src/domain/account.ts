import type { Permission } from './permission';
import type { Role } from './person';

/** Login credentials attached to a person. */
export interface Account {
  personId: number;
  username: string;
  passwordHash: string;
  role: Role;
  permissions: Permission[];
  disabled: boolean;
}

export const USERNAME_PATTERN = /^[A-Za-z0-9._@-]{1,64}$/;
