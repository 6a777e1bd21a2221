import { describe, expect, it } from 'vitest';
import snapshot from '#infra/constructs/cloudfront-origin-facing.json' with { type: 'json' };
import type { StoredConfig } from '#lib/config/model.ts';
import {
  EDGE_TOKEN_HEADER,
  type EdgeOrigin,
  edgeOrigin,
  edgeOriginFromEnv,
  viewerOfEdge,
} from '#lib/http/edge-origin.ts';
import { resolveAddress } from '#lib/http/middleware/resolve-address.ts';
import { resolveClientAddress, trustedProxies } from '#lib/http/requester-address.ts';
import { config, requestOf, run, started } from '#test/support/pipeline.ts';

// The edge (CloudFront with WAF, docs/edge.md): who the client of a request that came through it is, and
// that a request from anywhere else cannot pick its address.

const TOKEN = 'k'.repeat(64);
const edge = edgeOrigin({ ranges: [...snapshot.ipv4, ...snapshot.ipv6], token: TOKEN });
/** An origin-facing CloudFront address (130.176.0.0/18 in the snapshot). */
const CLOUDFRONT = '130.176.0.10';
/** Another origin-facing CloudFront address: the edge server of someone else's distribution. */
const OTHER_CLOUDFRONT = '64.252.64.20';
const VIEWER = '203.0.113.5';

/**
 * The client address the middleware gives a request, as API Gateway delivers it: `peer` is the source IP,
 * `forwardedFor` X-Forwarded-For, `token` the origin token header; `proxies` the tenant's trusted proxies.
 */
async function requesterOf(request: {
  peer: string;
  forwardedFor?: string;
  token?: string;
  proxies?: string[];
  withEdge?: boolean;
}) {
  const headers: Record<string, string> = {};
  if (request.forwardedFor !== undefined) headers['x-forwarded-for'] = request.forwardedFor;
  if (request.token !== undefined) headers[EDGE_TOKEN_HEADER] = request.token;
  const stored: StoredConfig = config({ trusted_proxies: request.proxies ?? [] });
  const { event, state } = await started(
    { path: 'item', sourceIp: request.peer, headers },
    { config: stored },
  );
  const trusted = trustedProxies(stored.settings.trusted_proxies);
  await run(
    resolveAddress(() => trusted, request.withEdge === false ? undefined : edge),
    'before',
    requestOf(event),
  );
  return { client: state.requesterAddress, forwarded: state.forwardedAddress };
}

describe('a request through the edge', () => {
  it('is counted by the viewer CloudFront saw, the hop left of the one API Gateway appended', async () => {
    const { client } = await requesterOf({
      peer: CLOUDFRONT,
      forwardedFor: `${VIEWER}, ${CLOUDFRONT}`,
      token: TOKEN,
    });
    expect(client).toBe(VIEWER);
  });

  it('is counted by the viewer when API Gateway appended nothing', async () => {
    expect((await requesterOf({ peer: CLOUDFRONT, forwardedFor: VIEWER, token: TOKEN })).client).toBe(VIEWER);
  });

  it('cannot pick its address with an X-Forwarded-For of its own: CloudFront appends to it', async () => {
    const { client } = await requesterOf({
      peer: CLOUDFRONT,
      forwardedFor: `198.51.100.1, ${CLOUDFRONT}, ${VIEWER}, ${CLOUDFRONT}`,
      token: TOKEN,
    });
    expect(client).toBe(VIEWER);
  });

  it('is counted by an IPv6 viewer, whatever its spelling', async () => {
    const { client } = await requesterOf({
      peer: CLOUDFRONT,
      forwardedFor: `2001:DB8:0:1::0005, ${CLOUDFRONT}`,
      token: TOKEN,
    });
    expect(client).toBe('2001:db8:0:1::5');
  });

  it('stops at a viewer that is another CloudFront distribution: nothing left of it is believed', async () => {
    // Someone's own distribution in front of ours: its edge functions may write any X-Forwarded-For.
    const { client } = await requesterOf({
      peer: CLOUDFRONT,
      forwardedFor: `198.51.100.1, ${OTHER_CLOUDFRONT}, ${CLOUDFRONT}`,
      token: TOKEN,
    });
    expect(client).toBe(OTHER_CLOUDFRONT);
  });

  it("walks on through the tenant's own trusted proxies in front of the edge", async () => {
    const { client } = await requesterOf({
      peer: CLOUDFRONT,
      forwardedFor: `${VIEWER}, 10.1.1.1, ${CLOUDFRONT}`,
      token: TOKEN,
      proxies: ['10.0.0.0/8'],
    });
    expect(client).toBe(VIEWER);
  });

  it('gives a vouching staff server behind the edge the address it forwards for its customer', async () => {
    const { client, forwarded } = await requesterOf({
      peer: CLOUDFRONT,
      forwardedFor: `${VIEWER}, 198.51.100.20, ${CLOUDFRONT}`,
      token: TOKEN,
    });
    expect(client).toBe('198.51.100.20');
    expect(forwarded).toBe(VIEWER);
  });

  it('counts a request whose viewer hop is missing or malformed by CloudFront’s own address', async () => {
    expect((await requesterOf({ peer: CLOUDFRONT, forwardedFor: CLOUDFRONT, token: TOKEN })).client).toBe(
      CLOUDFRONT,
    );
    expect(
      (await requesterOf({ peer: CLOUDFRONT, forwardedFor: `evil, ${CLOUDFRONT}`, token: TOKEN })).client,
    ).toBe(CLOUDFRONT);
  });
});

describe('a request from anywhere else', () => {
  it('is counted by its own address with a guessed or stolen token, whatever X-Forwarded-For says', async () => {
    // Straight to API Gateway's regional name, bypassing CloudFront, with a token it guessed or stole.
    const direct = await requesterOf({
      peer: '198.51.100.9',
      forwardedFor: `${VIEWER}, ${CLOUDFRONT}`,
      token: TOKEN,
    });
    expect(direct.client).toBe('198.51.100.9');
  });

  it('is refused without the token: around the WAF, or another distribution to our origin', async () => {
    const forged = { peer: OTHER_CLOUDFRONT, forwardedFor: `${VIEWER}, ${OTHER_CLOUDFRONT}` };
    const direct = { peer: '198.51.100.9', forwardedFor: VIEWER };
    for (const request of [forged, direct]) {
      for (const token of [undefined, 'x'.repeat(64), TOKEN.slice(1), `${TOKEN} `]) {
        const refused = await requesterOf({ ...request, ...(token === undefined ? {} : { token }) }).catch(
          (error: unknown) => error,
        );
        expect(refused).toMatchObject({ id: 'forbidden', status: 403 });
        expect((refused as Error).message).toMatch(/through its own domain only/);
      }
    }
  });

  it('is answered, counted by its own address, while refuse_direct is off (a DNS move)', async () => {
    const moving = edgeOrigin({ ranges: snapshot.ipv4, token: TOKEN, refuseDirect: false });
    const headers = { 'x-forwarded-for': VIEWER };
    const stored: StoredConfig = config({ trusted_proxies: [] });
    const { event, state } = await started(
      { path: 'item', sourceIp: '198.51.100.9', headers },
      { config: stored },
    );
    await run(
      resolveAddress(() => trustedProxies([]), moving),
      'before',
      requestOf(event),
    );
    expect(state.requesterAddress).toBe('198.51.100.9');
    expect(
      edgeOriginFromEnv({ EDGE_PROXIES: '130.176.0.0/18', EDGE_ORIGIN_TOKEN: TOKEN })?.refuseDirect,
    ).toBe(true);
    expect(
      edgeOriginFromEnv({
        EDGE_PROXIES: '130.176.0.0/18',
        EDGE_ORIGIN_TOKEN: TOKEN,
        EDGE_REFUSE_DIRECT: 'false',
      })?.refuseDirect,
    ).toBe(false);
    expect(() =>
      edgeOriginFromEnv({
        EDGE_PROXIES: '130.176.0.0/18',
        EDGE_ORIGIN_TOKEN: TOKEN,
        EDGE_REFUSE_DIRECT: 'no',
      }),
    ).toThrow(/true or false/);
  });

  it('is served from a CloudFront range missing from an old snapshot, counted by that address', async () => {
    // A new range, not yet in the snapshot: the token says it came through the edge; the address stays
    // CloudFront's until the snapshot is refreshed (fails safe on the count, never refuses the guest).
    const { client } = await requesterOf({ peer: '198.51.100.200', forwardedFor: VIEWER, token: TOKEN });
    expect(client).toBe('198.51.100.200');
  });

  it('could pick its address if CloudFront’s ranges were trusted proxies with no token (the check planted broken)', () => {
    // What trusting the ranges alone would do: the address that other distribution wrote is believed.
    const rangesOnly = resolveClientAddress({
      peer: OTHER_CLOUDFRONT,
      forwardedFor: `${VIEWER}, ${OTHER_CLOUDFRONT}`,
      trusted: trustedProxies(snapshot.ipv4),
    });
    expect(rangesOnly).toBe(VIEWER);
    expect(
      viewerOfEdge({ edge, peer: OTHER_CLOUDFRONT, forwardedFor: `${VIEWER}, ${OTHER_CLOUDFRONT}` }),
    ).toBe(undefined);
  });

  it('is counted by its own address in a stack without the edge, even from a CloudFront address', async () => {
    const { client } = await requesterOf({
      peer: CLOUDFRONT,
      forwardedFor: `${VIEWER}, ${CLOUDFRONT}`,
      token: TOKEN,
      withEdge: false,
    });
    expect(client).toBe(CLOUDFRONT);
  });
});

describe("the edge's configuration", () => {
  it('is absent without its variables, and read from both', () => {
    expect(edgeOriginFromEnv({})).toBeUndefined();
    const read = edgeOriginFromEnv({
      EDGE_PROXIES: '130.176.0.0/18, 2600:9000:1000::/36',
      EDGE_ORIGIN_TOKEN: TOKEN,
    });
    expect(read?.tokens).toEqual([TOKEN]);
    expect(read?.ranges.check('130.176.63.255', 'ipv4')).toBe(true);
    expect(read?.ranges.check('2600:9000:1000::1', 'ipv6')).toBe(true);
    expect(read?.ranges.check('130.176.64.0', 'ipv4')).toBe(false);
  });

  it('accepts either token during a rotation, and neither once it is over', async () => {
    const next = 'n'.repeat(64);
    const rotating = edgeOriginFromEnv({
      EDGE_PROXIES: '130.176.0.0/18',
      EDGE_ORIGIN_TOKEN: `${next} ${TOKEN}`,
    });
    expect(rotating?.tokens).toEqual([next, TOKEN]);
    for (const token of [next, TOKEN]) {
      expect(
        viewerOfEdge({ edge: rotating as EdgeOrigin, peer: CLOUDFRONT, forwardedFor: VIEWER, token }),
      ).toEqual({
        peer: VIEWER,
        forwardedFor: '',
      });
    }
    const rotated = edgeOriginFromEnv({ EDGE_PROXIES: '130.176.0.0/18', EDGE_ORIGIN_TOKEN: next });
    expect(
      viewerOfEdge({ edge: rotated as EdgeOrigin, peer: CLOUDFRONT, forwardedFor: VIEWER, token: TOKEN }),
    ).toBe(undefined);
    expect(() =>
      edgeOriginFromEnv({ EDGE_PROXIES: '130.176.0.0/18', EDGE_ORIGIN_TOKEN: `${next} short` }),
    ).toThrow(/at least 32/);
  });

  it('fails the cold start with one variable of the two, a short token or no range', () => {
    expect(() => edgeOriginFromEnv({ EDGE_PROXIES: '130.176.0.0/18' })).toThrow(/go together/);
    expect(() => edgeOriginFromEnv({ EDGE_ORIGIN_TOKEN: TOKEN })).toThrow(/go together/);
    expect(() => edgeOriginFromEnv({ EDGE_PROXIES: '130.176.0.0/18', EDGE_ORIGIN_TOKEN: 'short' })).toThrow(
      /at least 32/,
    );
    expect(() => edgeOrigin({ ranges: [], token: TOKEN })).toThrow(/no address range/);
  });

  it('reads a snapshot of CloudFront’s origin-facing ranges that says where and when it was taken', () => {
    expect(snapshot.source).toBe('https://ip-ranges.amazonaws.com/ip-ranges.json');
    expect(snapshot.service).toBe('CLOUDFRONT_ORIGIN_FACING');
    expect(snapshot.createDate).toMatch(/^\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}$/);
    expect(snapshot.ipv4.length).toBeGreaterThan(10);
    for (const range of [...snapshot.ipv4, ...snapshot.ipv6]) expect(range).toMatch(/^[\d.:a-f]+\/\d{1,3}$/);
  });
});
