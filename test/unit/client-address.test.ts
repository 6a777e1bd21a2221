import { describe, expect, it } from 'vitest';
import {
  normalizeAddress,
  parseProxyList,
  requesterKeyOf,
  resolveClientAddress,
  trustedProxies,
} from '#lib/http/requester-address.ts';

const none = trustedProxies([]);
const cdn = trustedProxies(['10.0.0.0/8', '2001:db8:cafe::/48', '192.0.2.1']);

describe('the client address', () => {
  it('is the peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(resolveClientAddress({ peer: '203.0.113.5', forwardedFor: '1.1.1.1', trusted: none })).toBe(
      '203.0.113.5',
    );
  });

  it('is the right-most forwarded address that is not a trusted proxy', () => {
    expect(
      resolveClientAddress({
        peer: '10.1.2.3',
        forwardedFor: '6.6.6.6, 203.0.113.5, 10.9.9.9, 192.0.2.1',
        trusted: cdn,
      }),
    ).toBe('203.0.113.5');
  });

  it('ignores a spoofed left part: a client cannot pick its address through a trusted proxy', () => {
    const spoofed = resolveClientAddress({
      peer: '10.1.2.3',
      forwardedFor: '1.2.3.4, 203.0.113.5',
      trusted: cdn,
    });
    expect(spoofed).toBe('203.0.113.5');
  });

  it('skips the peer appended by the gateway itself and matches IPv6 ranges', () => {
    expect(
      resolveClientAddress({
        peer: '2001:db8:cafe::7',
        forwardedFor: '2001:db8:1::9, 2001:db8:cafe::7',
        trusted: cdn,
      }),
    ).toBe('2001:db8:1::9');
  });

  it('stops at a malformed hop and keeps the last trusted address', () => {
    expect(resolveClientAddress({ peer: '10.1.2.3', forwardedFor: 'evil, 10.2.2.2', trusted: cdn })).toBe(
      '10.2.2.2',
    );
    expect(resolveClientAddress({ peer: '10.1.2.3', forwardedFor: '', trusted: cdn })).toBe('10.1.2.3');
  });

  it('takes the forwarded address of a vouching staff credential even from an untrusted peer', () => {
    expect(
      resolveClientAddress({
        peer: '198.51.100.20',
        forwardedFor: '203.0.113.77, 198.51.100.20',
        trusted: none,
        vouched: true,
      }),
    ).toBe('203.0.113.77');
  });

  it('normalises ports, brackets and IPv4-mapped IPv6', () => {
    expect(normalizeAddress('[2001:DB8::1]:443')).toBe('2001:db8::1');
    expect(normalizeAddress('203.0.113.5:8080')).toBe('203.0.113.5');
    expect(normalizeAddress('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(normalizeAddress('not an address')).toBeUndefined();
  });

  it('counts IPv6 clients by their /64 and IPv4 clients by their address', () => {
    expect(requesterKeyOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(requesterKeyOf('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(requesterKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(requesterKeyOf('2001:db8:0:0:ffff::1')).toBe('2001:db8:0:0::/64');
    expect(requesterKeyOf('203.0.113.5')).toBe('203.0.113.5');
  });

  it('gives every spelling of one IPv4 address one key, IPv4-mapped IPv6 in dotted or hex form included', () => {
    const spellings = [
      '198.51.100.7',
      '::ffff:198.51.100.7',
      '::FFFF:198.51.100.7',
      '::ffff:c633:6407',
      '0:0:0:0:0:ffff:c633:6407',
      '0000:0000:0000:0000:0000:FFFF:C633:6407',
      '[::ffff:c633:6407]:443',
      '198.51.100.7:8080',
    ];
    expect(new Set(spellings.map((spelling) => requesterKeyOf(normalizeAddress(spelling) ?? '')))).toEqual(
      new Set(['198.51.100.7']),
    );
    expect(new Set(spellings.map((spelling) => requesterKeyOf(spelling)))).toEqual(new Set(['198.51.100.7']));
  });

  it('gives every spelling of one IPv6 address one address and one key', () => {
    const spellings = [
      '2001:db8:1:2::a',
      '2001:DB8:1:2:0:0:0:A',
      '2001:0db8:0001:0002:0000:0000:0000:000a',
      '2001:db8:1:2:0::a',
      '2001:db8:1:2::0:a',
      '2001:db8:1:2::0.0.0.10',
      '2001:db8:1:2:0:0:0.0.0.10',
      '2001:db8:1:2::a%eth0',
      '[2001:db8:1:2::A]:8443',
    ];
    expect(new Set(spellings.map(normalizeAddress))).toEqual(new Set(['2001:db8:1:2::a']));
    expect(new Set(spellings.map((spelling) => requesterKeyOf(spelling)))).toEqual(
      new Set(['2001:db8:1:2::/64']),
    );
  });

  it('writes IPv6 as RFC 5952 does: the longest zero run compressed, the first of equals, never one group', () => {
    expect(normalizeAddress('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(normalizeAddress('2001:0:0:1:0:0:0:1')).toBe('2001:0:0:1::1');
    expect(normalizeAddress('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(normalizeAddress('0:0:0:0:0:0:0:0')).toBe('::');
    expect(normalizeAddress('::1')).toBe('::1');
    expect(normalizeAddress('1::')).toBe('1::');
    expect(normalizeAddress('::1.2.3.4')).toBe('::102:304');
  });

  it('resolves the same client whatever spelling the peer and the proxies use', () => {
    const mappedPeer = resolveClientAddress({
      peer: '::ffff:a01:203',
      forwardedFor: '::FFFF:203.0.113.5',
      trusted: cdn,
    });
    expect(mappedPeer).toBe('203.0.113.5');
    const spelledProxy = resolveClientAddress({
      peer: '2001:DB8:CAFE:0000::7',
      forwardedFor: '2001:db8:1:0::9, 2001:0db8:cafe::7',
      trusted: cdn,
    });
    expect(spelledProxy).toBe('2001:db8:1::9');
  });

  it('matches trusted ranges on canonical bytes: an IPv4-mapped range is the IPv4 range', () => {
    const mapped = trustedProxies(['::ffff:10.0.0.0/104', '::FFFF:C000:0201']);
    expect(resolveClientAddress({ peer: '10.9.8.7', forwardedFor: '203.0.113.5', trusted: mapped })).toBe(
      '203.0.113.5',
    );
    expect(resolveClientAddress({ peer: '192.0.2.1', forwardedFor: '203.0.113.6', trusted: mapped })).toBe(
      '203.0.113.6',
    );
    expect(resolveClientAddress({ peer: '11.0.0.1', forwardedFor: '203.0.113.7', trusted: mapped })).toBe(
      '11.0.0.1',
    );
  });

  it('counts IPv6 clients by a wider network when the tenant sets ipv6_prefix 56 or 48', () => {
    expect(requesterKeyOf('2001:db8:1:2aff:aaaa::1', 56)).toBe('2001:db8:1:2a00::/56');
    expect(requesterKeyOf('2001:DB8:1:2A00::', 56)).toBe('2001:db8:1:2a00::/56');
    expect(requesterKeyOf('2001:db8:1:2bff::1', 56)).toBe('2001:db8:1:2b00::/56');
    expect(requesterKeyOf('2001:db8:1:ffff:1::1', 48)).toBe('2001:db8:1:0::/48');
    expect(requesterKeyOf('2001:db8:1::', 48)).toBe('2001:db8:1:0::/48');
    expect(requesterKeyOf('203.0.113.5', 48)).toBe('203.0.113.5');
    expect(requesterKeyOf('::ffff:203.0.113.5', 56)).toBe('203.0.113.5');
  });

  it('reads TRUSTED_PROXIES as a comma list', () => {
    expect(parseProxyList(' 10.0.0.0/8, ,192.0.2.1 ')).toEqual(['10.0.0.0/8', '192.0.2.1']);
    expect(parseProxyList(undefined)).toEqual([]);
  });
});
