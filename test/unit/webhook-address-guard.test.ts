import { describe, expect, it } from 'vitest';
import { type OutboundPolicy, refusedAddress, refusedUrl } from '#lib/kernel/outbound/address-guard.ts';

// Public addresses appear here only as strings: nothing in this file opens a connection.
const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:4700::1111';
const POLICIES: OutboundPolicy[] = ['deployed', 'local'];

// [address, reason under both policies]: each range's first and last address, then its neighbours outside.
const BOTH_POLICIES: ReadonlyArray<readonly [string, string | undefined]> = [
  ['0.0.0.0', 'an unspecified address'],
  ['0.255.255.255', 'an unspecified address'],
  ['1.0.0.0', undefined],
  ['9.255.255.255', undefined],
  ['10.0.0.0', 'a private address'],
  ['10.255.255.255', 'a private address'],
  ['11.0.0.0', undefined],
  ['100.63.255.255', undefined],
  ['100.64.0.0', 'a carrier-grade NAT address'],
  ['100.127.255.255', 'a carrier-grade NAT address'],
  ['100.128.0.0', undefined],
  ['169.253.255.255', undefined],
  ['169.254.0.0', 'a link-local address'],
  ['169.254.169.254', 'a cloud metadata address'],
  ['169.254.255.255', 'a link-local address'],
  ['169.255.0.0', undefined],
  ['172.15.255.255', undefined],
  ['172.16.0.0', 'a private address'],
  ['172.31.255.255', 'a private address'],
  ['172.32.0.0', undefined],
  ['191.255.255.255', undefined],
  ['192.0.0.0', 'a reserved address'],
  ['192.0.0.255', 'a reserved address'],
  ['192.0.1.0', undefined],
  ['192.0.2.0', 'a documentation address'],
  ['192.0.2.255', 'a documentation address'],
  ['192.0.3.0', undefined],
  ['192.167.255.255', undefined],
  ['192.168.0.0', 'a private address'],
  ['192.168.255.255', 'a private address'],
  ['192.169.0.0', undefined],
  ['198.17.255.255', undefined],
  ['198.18.0.0', 'a benchmarking address'],
  ['198.19.255.255', 'a benchmarking address'],
  ['198.20.0.0', undefined],
  ['198.51.99.255', undefined],
  ['198.51.100.0', 'a documentation address'],
  ['198.51.100.255', 'a documentation address'],
  ['198.51.101.0', undefined],
  ['203.0.112.255', undefined],
  ['203.0.113.0', 'a documentation address'],
  ['203.0.113.255', 'a documentation address'],
  ['203.0.114.0', undefined],
  ['223.255.255.255', undefined],
  ['224.0.0.0', 'a multicast address'],
  ['239.255.255.255', 'a multicast address'],
  ['240.0.0.0', 'a reserved address'],
  ['255.255.255.255', 'a reserved address'],
  [PUBLIC_V4, undefined],
  ['::', 'an unspecified address'],
  ['::2', 'an unspecified address'],
  ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', undefined],
  ['fe80::', 'a link-local address'],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a link-local address'],
  ['fe80::1%eth0', 'a link-local address'],
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', undefined],
  ['fc00::', 'a unique local address'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a unique local address'],
  ['fd00:ec2::254', 'a cloud metadata address'],
  ['fd00:ec2::253', 'a unique local address'],
  ['fec0::', 'a unique local address'],
  ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a unique local address'],
  ['ff00::', 'a multicast address'],
  ['ff02::1', 'a multicast address'],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a multicast address'],
  ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', undefined],
  ['2001:db8::', 'a documentation address'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'a documentation address'],
  ['2001:db9::', undefined],
  ['2002::1', 'a transition address'],
  ['2001::1', 'a transition address'],
  ['64:ff9b:1::1', 'a transition address'],
  [PUBLIC_V6, undefined],
  ['2a00:1450:4001:80e::200e', undefined],
  // IPv4-mapped, IPv4-compatible and NAT64 addresses are judged by the IPv4 address they carry.
  ['::ffff:169.254.169.254', 'a cloud metadata address'],
  ['::ffff:a9fe:a9fe', 'a cloud metadata address'],
  ['::ffff:10.0.0.5', 'a private address'],
  ['::ffff:192.168.1.1', 'a private address'],
  ['::ffff:0.0.0.0', 'an unspecified address'],
  [`::ffff:${PUBLIC_V4}`, undefined],
  ['::10.0.0.5', 'a private address'],
  ['64:ff9b::a9fe:a9fe', 'a cloud metadata address'],
  [`64:ff9b::${PUBLIC_V4}`, undefined],
  ['not-an-ip', 'not an IP address'],
  ['', 'not an IP address'],
  ['10.0.0.0/8', 'not an IP address'],
];

// [address, reason under deployed]: loopback is refused there and allowed for the local runner.
const LOOPBACK: ReadonlyArray<readonly [string, string]> = [
  ['126.255.255.255', ''],
  ['127.0.0.0', 'a loopback address'],
  ['127.0.0.1', 'a loopback address'],
  ['127.255.255.255', 'a loopback address'],
  ['128.0.0.0', ''],
  ['::1', 'a loopback address'],
  ['::ffff:127.0.0.1', 'a loopback address'],
  ['::127.0.0.1', 'a loopback address'],
];

describe('refusedAddress', () => {
  for (const policy of POLICIES) {
    it.each(BOTH_POLICIES)(`judges %s the same way under the ${policy} policy`, (address, reason) => {
      expect(refusedAddress(address, policy)).toBe(reason);
    });
  }

  it.each(LOOPBACK)('refuses loopback %s when deployed and allows it locally', (address, reason) => {
    expect(refusedAddress(address, 'deployed')).toBe(reason === '' ? undefined : reason);
    expect(refusedAddress(address, 'local')).toBeUndefined();
  });

  it('fails closed on a policy it does not know', () => {
    expect(refusedAddress('127.0.0.1', 'staging' as OutboundPolicy)).toBe('a loopback address');
  });
});

describe('refusedUrl', () => {
  const cases: ReadonlyArray<readonly [string, OutboundPolicy, string | undefined]> = [
    ['https://hooks.example.com/in', 'deployed', undefined],
    ['https://hooks.example.com/in', 'local', undefined],
    ['http://hooks.example.com/in', 'deployed', 'scheme http: is not allowed by the deployed policy'],
    ['http://localhost:3000/in', 'local', undefined],
    ['ftp://hooks.example.com/in', 'local', 'scheme ftp: is not allowed by the local policy'],
    ['ws://hooks.example.com/in', 'deployed', 'scheme ws: is not allowed by the deployed policy'],
    ['file:///etc/passwd', 'local', 'scheme file: is not allowed by the local policy'],
    ['https://user:secret@hooks.example.com/in', 'deployed', 'the URL carries credentials'],
    ['https://user@hooks.example.com/in', 'deployed', 'the URL carries credentials'],
    ['http://:secret@localhost/in', 'local', 'the URL carries credentials'],
  ];

  it.each(cases)('judges %s under the %s policy', (url, policy, reason) => {
    expect(refusedUrl(new URL(url), policy)).toBe(reason);
  });

  it('never repeats the password in its reason', () => {
    expect(refusedUrl(new URL('https://user:hunter2@hooks.example.com/'), 'deployed')).not.toContain(
      'hunter2',
    );
  });

  it('leaves address checks to after DNS, even for an IP literal', () => {
    expect(refusedUrl(new URL('https://169.254.169.254/latest/meta-data/'), 'deployed')).toBeUndefined();
  });
});
