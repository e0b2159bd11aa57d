export const PERMISSIONS = ['read', 'write'] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** Permissions in their canonical order, without duplicates. */
export function normalizePermissions(values: Iterable<Permission>): Permission[] {
  const set = new Set(values);
  return PERMISSIONS.filter((p) => set.has(p));
}
