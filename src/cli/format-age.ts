/** A duration as a person reads it: "40 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** How far behind a subscription is, in words: "up to date", or "3 changes, oldest 2 h 5 min". */
export function formatBehind(
  behind: { changes: number; orMore: boolean; oldestAt: Date | null },
  now: Date,
): string {
  if (behind.changes === 0) return 'up to date';
  const count = behind.orMore
    ? `${behind.changes} changes or more`
    : behind.changes === 1
      ? '1 change'
      : `${behind.changes} changes`;
  return behind.oldestAt === null
    ? count
    : `${count}, oldest ${formatAge(now.getTime() - behind.oldestAt.getTime())}`;
}
