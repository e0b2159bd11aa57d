import { isIP, isIPv4 } from 'node:net';

/**
 * TRUST_PROXY's list of proxies (addresses, subnets, Express's presets), read as Express's
 * proxy-addr reads it, as ranges of numbers, so that start-up can refuse what proxy-addr would
 * throw on and what would trust every client: a list that covers all of IPv4 or all of IPv6
 * lets any client write its own address into X-Forwarded-For, and with it escape the sign-in
 * lockout, whatever notation hides that (`0.0.0.0/1,128.0.0.0/1`, `::ffff:0:0/96`, many pieces).
 */

export interface AddressRange {
  family: 4 | 6;
  first: bigint;
  last: bigint;
}

/** Express's names for groups of subnets (proxy-addr's lists). */
const PRESETS: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

const BITS = { 4: 32, 6: 128 } as const;
const IPV4_LAST = (1n << 32n) - 1n;
const IPV6_LAST = (1n << 128n) - 1n;
/** ::ffff:0:0/96, where IPv6 writes IPv4 addresses: proxy-addr treats them as the IPv4 ones. */
const MAPPED_FIRST = 0xffffn << 32n;
const MAPPED_LAST = MAPPED_FIRST + IPV4_LAST;

function ipv4Number(address: string): bigint {
  return address.split('.').reduce((number, part) => (number << 8n) + BigInt(part), 0n);
}

/** An address Node's isIPv6 accepted (so well formed), without a zone, as a number. */
function ipv6Number(address: string): bigint {
  let text = address;
  // A trailing dotted IPv4 address stands for the last two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const v4 = ipv4Number(dotted[2]);
    text = `${dotted[1]}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((number, group) => (number << 16n) + BigInt(`0x${group}`), 0n);
}

/** The prefix length a dotted netmask stands for, or null when its ones are not contiguous. */
function netmaskPrefix(mask: string): number | null {
  const bits = ipv4Number(mask).toString(2).padStart(32, '0');
  if (!/^1*0*$/.test(bits)) return null;
  const zero = bits.indexOf('0');
  return zero === -1 ? 32 : zero;
}

/**
 * One entry of the list (`10.0.0.1`, `10.0.0.0/8`, `10.0.0.0/255.0.0.0`, `::ffff:10.0.0.0/104`, a
 * preset) as ranges, or null when proxy-addr would not take it.
 */
export function proxyEntryRanges(entry: string): AddressRange[] | null {
  // Own names only: `toString` is no preset, whatever Object.prototype says.
  const preset = Object.hasOwn(PRESETS, entry) ? PRESETS[entry] : undefined;
  if (preset !== undefined) return preset.map((subnet) => proxyEntryRanges(subnet)![0]);
  const [address, range, ...rest] = entry.split('/');
  const family = isIP(address);
  // A zone (fe80::1%eth0) names an interface, which says nothing about a client's address.
  if ((family !== 4 && family !== 6) || rest.length > 0 || address.includes('%')) return null;
  const bits = BITS[family];
  let prefix: number | null;
  if (range === undefined) prefix = bits;
  else if (/^\d+$/.test(range)) prefix = Number(range) <= bits ? Number(range) : null;
  else prefix = family === 4 && isIPv4(range) ? netmaskPrefix(range) : null;
  if (prefix === null) return null;
  const number = family === 4 ? ipv4Number(address) : ipv6Number(address);
  const hostBits = BigInt(bits - prefix);
  const first = (number >> hostBits) << hostBits;
  return [{ family, first, last: first + (1n << hostBits) - 1n }];
}

/** Whether the ranges, together, hold every number from 0 to `last`. */
function coversAll(ranges: { first: bigint; last: bigint }[], last: bigint): boolean {
  let next = 0n;
  for (const range of [...ranges].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0))) {
    if (range.first > next) return false;
    if (range.last + 1n > next) next = range.last + 1n;
    if (next > last) return true;
  }
  return false;
}

/**
 * Which family, if any, the ranges trust every address of. IPv4 clients are also matched against
 * the IPv6 ranges as ::ffff:a.b.c.d (proxy-addr does for mapped subnets, and did for any before
 * 2.0.8), so an IPv6 range's part in ::ffff:0:0/96 counts for IPv4. That block is in turn left out
 * of "all of IPv6": its addresses are IPv4 clients, judged by the first rule.
 */
export function familyCoveredByAll(ranges: AddressRange[]): 'IPv4' | 'IPv6' | 'IPv4 and IPv6' | null {
  const ipv4 = ranges.filter(({ family }) => family === 4);
  for (const { family, first, last } of ranges) {
    if (family === 6 && first <= MAPPED_LAST && last >= MAPPED_FIRST) {
      ipv4.push({
        family: 4,
        first: (first > MAPPED_FIRST ? first : MAPPED_FIRST) - MAPPED_FIRST,
        last: (last < MAPPED_LAST ? last : MAPPED_LAST) - MAPPED_FIRST,
      });
    }
  }
  const ipv6 = ranges.filter(({ family }) => family === 6);
  ipv6.push({ family: 6, first: MAPPED_FIRST, last: MAPPED_LAST });
  const all4 = coversAll(ipv4, IPV4_LAST);
  const all6 = coversAll(ipv6, IPV6_LAST);
  if (all4 && all6) return 'IPv4 and IPv6';
  return all4 ? 'IPv4' : all6 ? 'IPv6' : null;
}
