import { describe, expect, it } from 'vitest';
import {
  clientKeyOf,
  normalizeAddress,
  parseProxyList,
  resolveClientAddress,
  trustedProxies,
} from '#lib/http/client-address.ts';

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
    expect(clientKeyOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKeyOf('203.0.113.5')).toBe('203.0.113.5');
  });

  it('reads TRUSTED_PROXIES as a comma list', () => {
    expect(parseProxyList(' 10.0.0.0/8, ,192.0.2.1 ')).toEqual(['10.0.0.0/8', '192.0.2.1']);
    expect(parseProxyList(undefined)).toEqual([]);
  });
});
