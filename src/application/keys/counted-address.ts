const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/** The four bytes of a dotted IPv4 address, or null. */
function ipv4Bytes(text: string): number[] | null {
  const match = IPV4.exec(text);
  if (match === null) return null;
  const bytes = match.slice(1).map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : null;
}

/** The groups of a list of IPv6 groups, the last of which may be a dotted IPv4 address; null if malformed. */
function groupsOf(parts: string[]): number[] | null {
  const groups: number[] = [];
  for (const [index, part] of parts.entries()) {
    const bytes = index === parts.length - 1 && part.includes('.') ? ipv4Bytes(part) : null;
    if (bytes !== null) groups.push((bytes[0] << 8) | bytes[1], (bytes[2] << 8) | bytes[3]);
    else if (HEX_GROUP.test(part)) groups.push(Number.parseInt(part, 16));
    else return null;
  }
  return groups;
}

/** The eight 16-bit groups of an IPv6 address (zone removed), or null when it is not one. */
function ipv6Groups(text: string): number[] | null {
  const address = text.toLowerCase().split('%', 1)[0];
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const split = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groupsOf(split(halves[0]));
  const tail = halves.length === 2 ? groupsOf(split(halves[1])) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

const LOOPBACK = 'loopback';

function countedIpv4(bytes: number[]): string {
  return bytes[0] === 127 ? LOOPBACK : bytes.join('.');
}

/**
 * A client address as the login lockout counts it (SPEC §3). An IPv4-mapped IPv6 address
 * (`::ffff:a.b.c.d`) is its IPv4 address. Any other IPv6 address counts by its /64: a network of
 * that size is what one customer is given, and a client may pick any address in it. Every loopback
 * address (127.0.0.0/8, ::1, and their mapped forms) is one client, the machine itself, which can
 * reach the service through any of them. Text that is no address is counted as it is.
 */
export function countedAddress(address: string): string {
  const v4 = ipv4Bytes(address);
  if (v4 !== null) return countedIpv4(v4);
  const groups = ipv6Groups(address);
  if (groups === null) return address;
  const zeroUpTo = (end: number) => groups.slice(0, end).every((group) => group === 0);
  if (zeroUpTo(5) && groups[5] === 0xffff) {
    return countedIpv4([groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255]);
  }
  if (zeroUpTo(7) && groups[7] === 1) return LOOPBACK;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
