import type { StoredConfig } from '../../config/index.ts';
import { cameThroughEdge, EDGE_TOKEN_HEADER, type EdgeOrigin, viewerOfEdge } from '../edge-origin.ts';
import { ApiError } from '../errors.ts';
import { type ApiMiddleware, stateWith } from '../request-state.ts';
import { resolveClientAddress, type TrustedProxies } from '../requester-address.ts';

/**
 * Resolves the client's address from the gateway's source IP and the `X-Forwarded-For` hops of trusted
 * proxies; also the address the peer forwards, which counts only when a staff credential vouches for it
 * (which the authorisation step decides). Behind `edge`, a request that came through it starts from the
 * viewer CloudFront saw, as if the viewer had called the gateway itself, and one that did not (straight to
 * API Gateway's regional name, around the WAF) is refused.
 */
export const resolveAddress = (
  trustedOf: (config: StoredConfig) => TrustedProxies,
  edge?: EdgeOrigin,
): ApiMiddleware => ({
  before: ({ event }) => {
    const state = stateWith(event, 'config');
    const sent = {
      peer: event.requestContext.http.sourceIp,
      forwardedFor: event.headers?.['x-forwarded-for'] ?? '',
    };
    const token = event.headers?.[EDGE_TOKEN_HEADER];
    if (edge?.refuseDirect && !cameThroughEdge(edge, token)) {
      throw new ApiError('forbidden', {
        details: 'This API answers through its own domain only: use the address its booking widget names',
      });
    }
    const viewer = edge && viewerOfEdge({ edge, ...sent, token });
    const options = { ...(viewer ?? sent), trusted: trustedOf(state.config) };
    state.requesterAddress = resolveClientAddress(options);
    state.forwardedAddress = resolveClientAddress({ ...options, vouched: true });
  },
});
