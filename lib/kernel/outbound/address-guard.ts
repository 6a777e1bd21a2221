import { BlockList, isIP } from 'node:net';

/**
 * Where an outbound request may go (a webhook delivery, a channel feed): from the deployed stack, https to
 * public addresses only; from the local runner, also http and loopback.
 */
export type OutboundPolicy = 'deployed' | 'local';

type Family = 'ipv4' | 'ipv6';

const familyOf = (address: string): Family => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

const blockListOf = (cidrs: readonly string[]): BlockList => {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/');
    list.addSubnet(address, Number(prefix), familyOf(address));
  }
  return list;
};

// Checked in order, so the metadata addresses get their own reason before the wider ranges that hold them.
const REFUSED_RANGES: ReadonlyArray<{ reason: string; list: BlockList }> = [
  { reason: 'a cloud metadata address', cidrs: ['169.254.169.254/32', 'fd00:ec2::254/128'] },
  { reason: 'an unspecified address', cidrs: ['0.0.0.0/8', '::/128'] },
  { reason: 'a private address', cidrs: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] },
  { reason: 'a carrier-grade NAT address', cidrs: ['100.64.0.0/10'] },
  { reason: 'a link-local address', cidrs: ['169.254.0.0/16', 'fe80::/10'] },
  // fec0::/10 is deprecated site-local: still routed inside some networks, never on the internet.
  { reason: 'a unique local address', cidrs: ['fc00::/7', 'fec0::/10'] },
  { reason: 'a multicast address', cidrs: ['224.0.0.0/4', 'ff00::/8'] },
  { reason: 'a reserved address', cidrs: ['240.0.0.0/4', '192.0.0.0/24', '100::/64'] },
  { reason: 'a benchmarking address', cidrs: ['198.18.0.0/15', '2001:2::/48'] },
  {
    reason: 'a documentation address',
    cidrs: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20'],
  },
  // Tunnels and local NAT64 reach an IPv4 address we cannot see, so they cannot be judged: refuse them.
  { reason: 'a transition address', cidrs: ['64:ff9b:1::/48', '2002::/16', '2001::/32'] },
].map(({ reason, cidrs }) => ({ reason, list: blockListOf(cidrs) }));

const LOOPBACK = blockListOf(['127.0.0.0/8', '::1/128']);

// IPv4-mapped, IPv4-compatible and well-known NAT64 addresses reach the IPv4 address in their last 32 bits.
const EMBEDS_IPV4 = blockListOf(['::ffff:0:0/96', '::/96', '64:ff9b::/96']);

/** The IPv4 address in the last 32 bits of an IPv6 address, read from its canonical (RFC 5952) form. */
const embeddedIpv4 = (ipv6: string): string => {
  const groups = new URL(`http://[${ipv6}]/`).hostname.slice(1, -1).split(':');
  // An empty group is part of the '::' run of zeros, which the canonical form may end with.
  const high = Number.parseInt(groups.at(-2) || '0', 16);
  const low = Number.parseInt(groups.at(-1) || '0', 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
};

/** Why an IP address (v4 or v6 literal) may not be a webhook target under the policy, or undefined when it may. */
export function refusedAddress(address: string, policy: OutboundPolicy): string | undefined {
  // A zone id only picks the interface; the address alone decides the range.
  const bare = address.split('%')[0] ?? '';
  if (isIP(bare) === 0) return 'not an IP address';
  const family = familyOf(bare);
  // Anything but the local runner is treated as deployed, so a wrong policy value fails closed.
  if (LOOPBACK.check(bare, family)) return policy === 'local' ? undefined : 'a loopback address';
  if (family === 'ipv6' && EMBEDS_IPV4.check(bare, 'ipv6')) {
    return refusedAddress(embeddedIpv4(bare), policy);
  }
  return REFUSED_RANGES.find(({ list }) => list.check(bare, family))?.reason;
}

/** Why a webhook URL may not be used under the policy before its host is resolved, or undefined when it may. */
export function refusedUrl(url: URL, policy: OutboundPolicy): string | undefined {
  const schemes = policy === 'local' ? ['http:', 'https:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return `scheme ${url.protocol} is not allowed by the ${policy} policy`;
  // Credentials in a URL end up in logs and Authorization headers we never meant to send.
  if (url.username !== '' || url.password !== '') return 'the URL carries credentials';
  return undefined;
}
