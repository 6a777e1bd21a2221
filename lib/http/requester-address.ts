import { BlockList, isIP } from 'node:net';

/** A set of trusted proxy addresses and CIDR ranges (IPv4 and IPv6), matched on canonical addresses. */
export type TrustedProxies = BlockList;

/** An address as its bytes: 4 for IPv4 (IPv4-mapped IPv6 included), 16 for IPv6. */
export interface AddressBytes {
  family: 4 | 6;
  bytes: Uint8Array;
}

const ipv4Bytes = (text: string): Uint8Array => Uint8Array.from(text.split('.').map(Number));

/** The 16 bytes of an address that `isIP` accepted as IPv6 (zone id already removed). */
const ipv6Bytes = (text: string): Uint8Array => {
  let value = text;
  // A dotted IPv4 tail is the last 32 bits, written as two hex groups so one split handles every form.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(value);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4Bytes(dotted[1]);
    value = `${value.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = value.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    const word = Number.parseInt(group, 16);
    bytes[index * 2] = word >> 8;
    bytes[index * 2 + 1] = word & 0xff;
  });
  return bytes;
};

const isIpv4Mapped = (bytes: Uint8Array): boolean =>
  bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;

/**
 * Parses an address in any of its spellings to its bytes: IPv4, or IPv6 with or without zero
 * compression, in any case, with leading zeros, a dotted IPv4 tail or a zone id (`%eth0`, which names
 * the interface of a link, not another host). An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`,
 * `::ffff:102:304`) is the IPv4 address. Undefined when the text is no address.
 */
function parseAddress(raw: string): AddressBytes | undefined {
  const text = raw.trim();
  const family = isIP(text);
  if (family === 4) return { family: 4, bytes: ipv4Bytes(text) };
  if (family !== 6) return undefined;
  const bytes = ipv6Bytes(text.replace(/%.*$/, ''));
  return isIpv4Mapped(bytes) ? { family: 4, bytes: bytes.slice(12) } : { family: 6, bytes };
}

const hexGroups = (bytes: Uint8Array): number[] =>
  Array.from(
    { length: bytes.length / 2 },
    (_, index) => ((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0),
  );

/** The one text of an address: dotted IPv4, or IPv6 as RFC 5952 writes it (lower case, longest zero run compressed). */
function formatAddress(address: AddressBytes): string {
  if (address.family === 4) return Array.from(address.bytes).join('.');
  const groups = hexGroups(address.bytes);
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; ) {
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > best.length) best = { start, length: end - start };
    start = end === start ? start + 1 : end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

const familyName = (address: AddressBytes): 'ipv4' | 'ipv6' => (address.family === 4 ? 'ipv4' : 'ipv6');

/**
 * Builds the trusted-proxy set from addresses and CIDRs, each parsed to its canonical address (an
 * IPv4-mapped range such as `::ffff:10.0.0.0/104` is the IPv4 range); entries that are neither are ignored.
 */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const [text = '', prefixText] = entry.trim().split('/');
    const address = parseAddress(text);
    if (!address) continue;
    const canonical = formatAddress(address);
    if (prefixText === undefined) {
      list.addAddress(canonical, familyName(address));
      continue;
    }
    let prefix = Number(prefixText);
    // A mapped range was written over 128 bits; its address is now the IPv4 one, counted over 32.
    if (address.family === 4 && isIP(text) === 6) prefix = Math.max(0, prefix - 96);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (address.family === 4 ? 32 : 128)) continue;
    list.addSubnet(canonical, prefix, familyName(address));
  }
  return list;
}

/** Parses a comma list of addresses and CIDRs (the local runner's TRUSTED_PROXIES). */
export const parseProxyList = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/**
 * The canonical text of an address as a peer or proxy wrote it: brackets and a port removed, then
 * parsed (`parseAddress`) and written back (`formatAddress`), so every spelling of one address is one
 * string. Undefined when it is no address.
 */
export function normalizeAddress(raw: string): string | undefined {
  const address = parseAddress(withoutPort(raw));
  return address ? formatAddress(address) : undefined;
}

const withoutPort = (raw: string): string => {
  const value = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) return bracketed[1] ?? '';
  return /^[\d.]+:\d+$/.test(value) ? value.slice(0, value.lastIndexOf(':')) : value;
};

const isTrusted = (address: string, trusted: TrustedProxies): boolean =>
  trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');

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

/** How wide an IPv6 client is counted: its /64 (one subscriber) or, for tenants whose guests get more, /56 or /48. */
export type Ipv6Prefix = 48 | 56 | 64;

/**
 * The key a client's limits and hold budgets are counted under: an IPv4 address as it is, an IPv6
 * address by its network of `ipv6Prefix` bits (default /64: one subscriber usually gets a whole /64, or
 * more, so counting single IPv6 addresses would be no limit at all). Any spelling of one address gives
 * one key; an IPv4-mapped address is its IPv4 address.
 */
export function requesterKeyOf(raw: string, ipv6Prefix: Ipv6Prefix = 64): string {
  const address = parseAddress(withoutPort(raw));
  if (!address) return raw;
  if (address.family === 4) return formatAddress(address);
  const network = address.bytes.slice(0, 8);
  // Whole bytes past the prefix are cleared, then the bits of the byte the prefix ends in.
  for (let index = 0; index < 8; index += 1) {
    const keep = Math.min(8, Math.max(0, ipv6Prefix - index * 8));
    network[index] = (network[index] ?? 0) & ((0xff << (8 - keep)) & 0xff);
  }
  // The first four groups in full, as the keys have always been written, so existing records keep their key.
  return `${hexGroups(network)
    .map((group) => group.toString(16))
    .join(':')}::/${ipv6Prefix}`;
}
