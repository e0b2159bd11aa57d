import { countedAddress } from '../../../../src/application/keys/counted-address';

describe('countedAddress', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(countedAddress('198.51.100.7')).toBe('198.51.100.7');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address, in either spelling', () => {
    expect(countedAddress('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(countedAddress('::FFFF:c633:6407')).toBe('198.51.100.7');
    expect(countedAddress('0:0:0:0:0:ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  it('counts every loopback address, IPv4 or IPv6, as one', () => {
    const loopbacks = ['127.0.0.1', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1', '127.8.9.10'];
    expect(new Set(loopbacks.map(countedAddress))).toEqual(new Set(['loopback']));
  });

  it('counts IPv6 addresses by their /64, however they are written', () => {
    const one = ['2001:db8:1:2::a', '2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2:3:4:5:6'];
    expect(new Set(one.map(countedAddress))).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(countedAddress('2001:db8:1:3::a')).toBe('2001:db8:1:3::/64');
    expect(countedAddress('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('drops the zone of a link-local address', () => {
    expect(countedAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('keeps an IPv6 address with an embedded IPv4 tail in its /64', () => {
    expect(countedAddress('64:ff9b:1:2::198.51.100.7')).toBe('64:ff9b:1:2::/64');
  });

  it.each(['unknown', '', '1::2::3', '1:2:3:4:5:6:7:8:9', '256.1.1.1', '1:2:3:4:5:6:7', 'g::1'])(
    'counts %p, which is no address, as it is',
    (text) => {
      expect(countedAddress(text)).toBe(text);
    },
  );
});
