/**
 * read: people data; write: change people; manage: the secretary's work over HTTP (import, erase,
 * subject-access and whole-directory export; SPEC §9). Each is granted by its own name: none implies
 * another.
 */
export const PERMISSIONS = ['read', 'write', 'manage'] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** Permissions in their canonical order, without duplicates. */
export function normalizePermissions(values: Iterable<Permission>): Permission[] {
  const set = new Set(values);
  return PERMISSIONS.filter((p) => set.has(p));
}
