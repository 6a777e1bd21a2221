import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import {
  normalizeAddress,
  parseProxyList,
  type TrustedProxies,
  trustedProxies,
} from './requester-address.ts';

/** The header the edge (CloudFront) adds to every request it sends to the API: the stack's origin token. */
export const EDGE_TOKEN_HEADER = 'x-origin-verify';

/** The environment variables that tell a deployed function the edge is in front of it. */
export const EDGE_ENV = {
  ranges: 'EDGE_PROXIES',
  token: 'EDGE_ORIGIN_TOKEN',
  /** `false` while a tenant's DNS moves to the distribution: a request around it is answered, not refused. */
  refuseDirect: 'EDGE_REFUSE_DIRECT',
} as const;

/** The shortest origin token accepted: the stack generates 64 characters. */
const MIN_TOKEN_LENGTH = 32;

/** The CloudFront edge in front of a deployment: the ranges it reaches the API from and the token it adds. */
export interface EdgeOrigin {
  ranges: TrustedProxies;
  /** The token CloudFront adds; during a rotation also the previous one, while edge locations change over. */
  tokens: readonly string[];
  /** Whether a request that did not come through the distribution is refused (403); counted by its peer if not. */
  refuseDirect: boolean;
}

/**
 * An edge from its origin-facing ranges and token (white-space separated tokens during a rotation, each
 * accepted); throws (at cold start) on a short token or no range.
 */
export function edgeOrigin(options: {
  ranges: readonly string[];
  token: string;
  refuseDirect?: boolean;
}): EdgeOrigin {
  const tokens = options.token.split(/\s+/).filter((token) => token !== '');
  if (tokens.length === 0 || tokens.some((token) => token.length < MIN_TOKEN_LENGTH)) {
    throw new Error(`${EDGE_ENV.token} must have at least ${MIN_TOKEN_LENGTH} characters`);
  }
  if (options.ranges.length === 0) throw new Error(`${EDGE_ENV.ranges} names no address range`);
  return { ranges: trustedProxies(options.ranges), tokens, refuseDirect: options.refuseDirect ?? true };
}

/**
 * The edge of a deployed function from its environment (EDGE_PROXIES, a comma list of CloudFront's
 * origin-facing ranges, and EDGE_ORIGIN_TOKEN), or undefined when the stack has no edge. One without the
 * other is a broken deployment and fails the cold start.
 */
export function edgeOriginFromEnv(env: Readonly<Record<string, string | undefined>>): EdgeOrigin | undefined {
  const ranges = env[EDGE_ENV.ranges];
  const token = env[EDGE_ENV.token];
  if (!ranges && !token) return undefined;
  if (!ranges || !token) throw new Error(`${EDGE_ENV.ranges} and ${EDGE_ENV.token} go together`);
  const refuse = env[EDGE_ENV.refuseDirect];
  if (refuse !== undefined && refuse !== 'true' && refuse !== 'false') {
    throw new Error(`${EDGE_ENV.refuseDirect} is true or false, not ${JSON.stringify(refuse)}`);
  }
  return edgeOrigin({ ranges: parseProxyList(ranges), token, refuseDirect: refuse !== 'false' });
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether a request carries one of the tokens, each compared in constant time whatever its length. */
const carriesToken = (sent: string | undefined, tokens: readonly string[]): boolean => {
  if (sent === undefined) return false;
  const presented = digest(sent);
  // Every token is compared, so the time taken says nothing about which one matched.
  return tokens.map((token) => timingSafeEqual(presented, digest(token))).includes(true);
};

/**
 * Whether a request came through this deployment's distribution at all: only CloudFront, configured by the
 * stack, adds the token. Its peer is not asked: a snapshot of CloudFront's ranges that is out of date must
 * not refuse guests arriving from a new range (they are then counted by CloudFront's address instead).
 */
export const cameThroughEdge = (edge: EdgeOrigin, sent: string | undefined): boolean =>
  carriesToken(sent, edge.tokens);

/**
 * The request as its viewer sent it to CloudFront, when it came through this deployment's edge: the
 * viewer's address as the peer, and the `X-Forwarded-For` hops the viewer itself sent. A request came
 * through the edge when its peer is in CloudFront's origin-facing ranges and it carries the origin token:
 * the ranges alone would trust any CloudFront distribution, whose edge functions may rewrite
 * `X-Forwarded-For`. CloudFront appends the viewer's address to `X-Forwarded-For` and API Gateway then the
 * address it was reached from (CloudFront's), so the viewer is the hop left of those. Only that one hop
 * is taken on CloudFront's word, never a hop further left, which the viewer wrote. Undefined otherwise:
 * the request's own peer counts, so a request from anywhere else cannot pick its address.
 */
export function viewerOfEdge(options: {
  edge: EdgeOrigin;
  peer: string;
  forwardedFor?: string | undefined;
  token?: string | undefined;
}): { peer: string; forwardedFor: string } | undefined {
  const peer = normalizeAddress(options.peer);
  if (!peer || !options.edge.ranges.check(peer, isIP(peer) === 6 ? 'ipv6' : 'ipv4')) return undefined;
  if (!carriesToken(options.token, options.edge.tokens)) return undefined;
  const hops = (options.forwardedFor ?? '')
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
  while (hops.length > 0 && normalizeAddress(hops.at(-1) ?? '') === peer) hops.pop();
  const viewer = normalizeAddress(hops.pop() ?? '');
  return viewer ? { peer: viewer, forwardedFor: hops.join(', ') } : undefined;
}
