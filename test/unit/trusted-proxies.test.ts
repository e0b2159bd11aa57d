import express from 'express';
import fc from 'fast-check';
import { ConfigError, loadConfig } from '../../src/config';
import { proxyEntryRanges } from '../../src/trusted-proxies';

/*
 * TRUST_PROXY lists that trust every address (SPEC §3): refused at start in one line, in any
 * notation. Express (through proxy-addr) is the judge of what a value means: every value the
 * service accepts must compile there, and trust no more than the check thinks it does.
 */

const IPV4_BITS = 32;
const IPV6_BITS = 128;
const MAPPED = 0xffffn << 32n;

function refusal(value: string): string | null {
  try {
    loadConfig({ TRUST_PROXY: value });
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

function dotted(number: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((number >> shift) & 0xffn)).join('.');
}

function netmask(prefix: number): string {
  return dotted(((1n << 32n) - 1n) ^ ((1n << BigInt(32 - prefix)) - 1n));
}

function groups(number: bigint): string[] {
  return Array.from({ length: 8 }, (_, i) => ((number >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
}

/** An IPv6 address written out in full, or with its longest run of zero groups as `::`. */
function ipv6(number: bigint, compress: boolean): string {
  const all = groups(number);
  if (!compress) return all.join(':');
  let best = { start: -1, length: 0 };
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && all[start + length] === '0') length++;
    if (length > best.length) best = { start, length };
  }
  if (best.length < 2) return all.join(':');
  return `${all.slice(0, best.start).join(':')}::${all.slice(best.start + best.length).join(':')}`;
}

interface Block {
  first: bigint;
  prefix: number;
}

/** The ways of writing an IPv4 block: dotted with a prefix or a netmask, or IPv4-mapped IPv6. */
const ipv4Notations = (block: Block): fc.Arbitrary<string> =>
  fc.constantFrom(
    `${dotted(block.first)}/${block.prefix}`,
    ...(block.prefix > 0 ? [`${dotted(block.first)}/${netmask(block.prefix)}`] : []),
    ...(block.prefix === 32 ? [dotted(block.first), `::ffff:${dotted(block.first)}`] : []),
    `::ffff:${dotted(block.first)}/${96 + block.prefix}`,
    `${ipv6(MAPPED + block.first, true)}/${96 + block.prefix}`,
    `${ipv6(MAPPED + block.first, false)}/${96 + block.prefix}`,
  );

const ipv6Notations = (block: Block): fc.Arbitrary<string> =>
  fc.constantFrom(
    `${ipv6(block.first, true)}/${block.prefix}`,
    `${ipv6(block.first, false)}/${block.prefix}`,
    ...(block.prefix === 128 ? [ipv6(block.first, true)] : []),
  );

/**
 * A random partition of the whole space into CIDR blocks: each split in two at random, at most
 * `maxDepth` levels deep, except that every block holding `around` is split down to it.
 */
function partition(bits: number, maxDepth: number, around?: Block): fc.Arbitrary<Block[]> {
  const split = (block: Block, depth: number): fc.Arbitrary<Block[]> => {
    const contains =
      around !== undefined &&
      block.prefix < around.prefix &&
      around.first >> BigInt(bits - block.prefix) === block.first >> BigInt(bits - block.prefix);
    const halves = () => {
      const prefix = block.prefix + 1;
      const upper = block.first + (1n << BigInt(bits - prefix));
      return fc
        .tuple(split({ first: block.first, prefix }, depth + 1), split({ first: upper, prefix }, depth + 1))
        .map(([a, b]) => [...a, ...b]);
    };
    if (contains) return halves();
    if (depth >= maxDepth || block.prefix >= bits) return fc.constant([block]);
    return fc.boolean().chain((more) => (more ? halves() : fc.constant([block])));
  };
  return split({ first: 0n, prefix: 0 }, 0);
}

function render(blocks: Block[], notations: (block: Block) => fc.Arbitrary<string>): fc.Arbitrary<string[]> {
  return fc
    .tuple(...blocks.map(notations))
    .chain((entries) =>
      fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }),
    );
}

/** The block in `blocks` at `index` modulo their number, and the rest. */
function withoutOne<T>(items: T[], index: number): T[] {
  const drop = index % items.length;
  return items.filter((_, i) => i !== drop);
}

describe('TRUST_PROXY lists that trust every address', () => {
  it('are refused in the notations an operator may meet, with one line naming the family', () => {
    const cases: [string, string][] = [
      ['0.0.0.0/0', 'IPv4'],
      ['0.0.0.0/1,128.0.0.0/1', 'IPv4'],
      ['0.0.0.0/0,::/0', 'IPv4 and IPv6'],
      ['::/0', 'IPv4 and IPv6'],
      ['::ffff:0:0/96', 'IPv4'],
      ['::ffff:0.0.0.0/96', 'IPv4'],
      ['0:0:0:0:0:ffff:0:0/96', 'IPv4'],
      ['0.0.0.0/128.0.0.0, 128.0.0.0/128.0.0.0', 'IPv4'],
      ['10.0.0.0/0.0.0.0', 'IPv4'],
      ['::/1,8000::/1', 'IPv4 and IPv6'],
      ['::/1,8000::/1,::ffff:0:0/97', 'IPv4 and IPv6'],
      ['::/1', 'IPv4'], // holds ::ffff:0:0/96, which older proxy-addr matched IPv4 clients against
      ['loopback, 0.0.0.0/2, 64.0.0.0/2, ::ffff:128.0.0.0/97', 'IPv4'],
    ];
    for (const [value, family] of cases) {
      const message = refusal(value);
      expect(message).toBe(
        `TRUST_PROXY ${JSON.stringify(value)} is refused: it trusts every ${family} address, so any client could choose its own address in X-Forwarded-For; give the number of proxies in front (e.g. 1) or their own addresses`,
      );
    }
  });

  it('leave alone the lists of real proxies, however wide', () => {
    for (const value of [
      'loopback',
      'loopback, linklocal, uniquelocal',
      '0.0.0.0/1',
      '10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7',
      '::ffff:10.0.0.0/104',
      '8000::/1',
      '2001:db8::/32, 10.0.0.1',
      '0.0.0.0/1,128.0.0.0/2,192.0.0.0/3,224.0.0.0/4,240.0.0.0/5,248.0.0.0/6,252.0.0.0/7,254.0.0.0/8,255.0.0.0/9',
    ]) {
      expect(refusal(value)).toBeNull();
    }
  });

  it('refuses in one line what Express would throw on, where it used to crash start-up', () => {
    for (const value of [
      '10.0.0.0/255.0.255.0',
      '10.0.0.1/0.0.0.1',
      'fe80::1%eth0',
      '1.2.3.04',
      '10.0.0.0/8/8',
      // Names an object has without being presets (fast-check found `toString`: a TypeError).
      'toString',
      'constructor',
      '__proto__',
      'loopback,hasOwnProperty',
    ]) {
      expect(refusal(value)).toMatch(/^TRUST_PROXY must be false, a hop count, or a comma-separated list/);
    }
  });

  it('are refused however IPv4 is cut into pieces and written', () => {
    fc.assert(
      fc.property(
        partition(IPV4_BITS, 6).chain((blocks) => render(blocks, ipv4Notations)),
        (entries) => {
          expect(refusal(entries.join(','))).toContain('it trusts every IPv4 address');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('are refused however IPv6 (outside the IPv4-mapped block) is cut into pieces and written', () => {
    const mapped = { first: MAPPED, prefix: 96 };
    const outsideMapped = partition(IPV6_BITS, 6, mapped).map((blocks) =>
      blocks.filter((block) => block.first !== MAPPED || block.prefix !== 96),
    );
    fc.assert(
      fc.property(
        outsideMapped.chain((blocks) => render(blocks, ipv6Notations)),
        (entries) => {
          expect(refusal(entries.join(', '))).toContain('it trusts every IPv6 address');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('are accepted once a single piece is missing, which Express then does not trust, nor more than the check counted', () => {
    const lists = partition(IPV4_BITS, 6)
      .filter((blocks) => blocks.length > 1)
      .chain((blocks) =>
        fc.nat().chain((index) => {
          const missing = blocks[index % blocks.length];
          return fc.record({
            missing: fc.constant(missing),
            entries: render(withoutOne(blocks, index), ipv4Notations),
          });
        }),
      );
    const offsets = fc.array(fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }), { minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(lists, offsets, ({ missing, entries }, probes) => {
        const value = entries.join(',');
        expect(refusal(value)).toBeNull();
        const app = express();
        app.set('trust proxy', loadConfig({ TRUST_PROXY: value }).trustProxy);
        const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
        const ranges = entries.flatMap((entry) => proxyEntryRanges(entry) ?? []);
        const counted = (address: bigint) =>
          ranges.some(
            ({ family, first, last }) =>
              (family === 4 && first <= address && address <= last) ||
              (family === 6 && first <= MAPPED + address && MAPPED + address <= last),
          );
        const size = 1n << BigInt(IPV4_BITS - missing.prefix);
        for (const probe of probes) {
          const hole = missing.first + (probe % size);
          expect(trust(dotted(hole), 0)).toBe(false);
          expect(trust(`::ffff:${dotted(hole)}`, 0)).toBe(false);
          if (trust(dotted(probe), 0)) expect(counted(probe)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('never let a value through that Express cannot compile, nor fail on one with more than a line', () => {
    const entry = fc.oneof(
      fc.constantFrom('loopback', 'linklocal', 'uniquelocal', '', ' ', '/', '::', '0', '1.2.3.4/', '::ffff:'),
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.')),
      fc
        .tuple(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)), fc.nat(40))
        .map(([parts, prefix]) => `${parts.join('.')}/${prefix}`),
      fc
        .tuple(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)), fc.nat(33))
        .map(([parts, prefix]) => `::ffff:${parts.join('.')}/${prefix + 90}`),
      fc
        .tuple(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.nat(130), fc.boolean())
        .map(([number, prefix, compress]) => `${ipv6(number, compress)}/${prefix}`),
      fc
        .tuple(
          fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)),
          fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)),
        )
        .map(([a, mask]) => `${a.join('.')}/${mask.join('.')}`),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 6 }), (entries) => {
        const value = entries.join(',');
        let trustProxy: ReturnType<typeof loadConfig>['trustProxy'];
        try {
          trustProxy = loadConfig({ TRUST_PROXY: value }).trustProxy;
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          expect((error as Error).message).not.toContain('\n');
          return;
        }
        expect(() => express().set('trust proxy', trustProxy)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});
