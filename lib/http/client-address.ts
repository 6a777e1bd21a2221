import { BlockList, isIP } from 'node:net';

/** A set of trusted proxy addresses and CIDR ranges (IPv4 and IPv6). */
export type TrustedProxies = BlockList;

const familyOf = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** Builds the trusted-proxy set from addresses and CIDRs; entries that are neither are ignored. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.trim().split('/');
    if (isIP(address) === 0) continue;
    if (prefix === undefined) list.addAddress(address, familyOf(address));
    else list.addSubnet(address, Number(prefix), familyOf(address));
  }
  return list;
}

/** Parses a comma list of addresses and CIDRs (the local runner's TRUSTED_PROXIES). */
export const parseProxyList = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** Strips what proxies add around an address: an IPv4-mapped IPv6 prefix, brackets, a port. */
export function normalizeAddress(raw: string): string | undefined {
  let value = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1] ?? '';
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  value = value.replace(/^::ffff:(?=[\d.]+$)/i, '');
  return isIP(value) === 0 ? undefined : value.toLowerCase();
}

const isTrusted = (address: string, trusted: TrustedProxies): boolean =>
  trusted.check(address, familyOf(address));

/**
 * The client address of a request: the peer's (the gateway's source IP), or, when that peer is a
 * trusted proxy, the right-most `X-Forwarded-For` address that is not a trusted proxy. With
 * `vouched` (a staff credential calling for its customer) the peer itself counts as trusted, so the
 * address it forwards is used. A malformed hop stops the walk at the last trusted one.
 */
export function resolveClientAddress(options: {
  peer: string;
  forwardedFor?: string;
  trusted: TrustedProxies;
  vouched?: boolean;
}): string {
  const peer = normalizeAddress(options.peer) ?? options.peer;
  if (!options.vouched && !isTrusted(peer, options.trusted)) return peer;
  let client = peer;
  const hops = (options.forwardedFor ?? '').split(',').reverse();
  for (const hop of hops) {
    if (hop.trim() === '') continue;
    const address = normalizeAddress(hop);
    if (!address) break;
    client = address;
    if (address === peer) continue;
    if (!isTrusted(address, options.trusted)) break;
  }
  return client;
}

/**
 * The key a client's limits are counted under: an IPv4 address as it is, an IPv6 address by its /64
 * (one subscriber usually gets a whole /64, so counting single IPv6 addresses would be no limit at all).
 */
export function clientKeyOf(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : address;
}

const expandIpv6 = (address: string): string[] | undefined => {
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  if (right.at(-1)?.includes('.') || left.at(-1)?.includes('.')) return undefined;
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...left, ...Array.from({ length: missing }, () => '0'), ...right].map((group) =>
    group.replace(/^0+(?=.)/, '').toLowerCase(),
  );
};
