/**
 * The instant a calendar day begins in a time zone: `--since 2024-05-01` means from midnight in
 * the directory's time zone, the same calendar the memberships use.
 */
export function startOfDay(date: string, timeZone: string): Date {
  const midnightUtc = new Date(`${date}T00:00:00Z`).getTime();
  let instant = midnightUtc - zoneOffset(midnightUtc, timeZone);
  // Near a daylight-saving change the offset at the guess can differ from the offset at UTC midnight.
  instant = midnightUtc - zoneOffset(instant, timeZone);
  return new Date(instant);
}

function zoneOffset(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return local - Math.floor(instant / 1000) * 1000;
}
