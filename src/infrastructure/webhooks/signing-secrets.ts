/** Every secret that signs at `now`: the current one, then the previous during a rotation. */
export function secretsOf(
  row: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | null },
  now: Date,
): string[] {
  return row.previous_secret !== null &&
    row.previous_secret_expires_at !== null &&
    row.previous_secret_expires_at > now
    ? [row.secret, row.previous_secret]
    : [row.secret];
}
