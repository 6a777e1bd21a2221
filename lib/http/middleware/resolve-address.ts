import type { StoredConfig } from '../../db/tenant-repository.ts';
import { resolveClientAddress, type TrustedProxies } from '../client-address.ts';
import { EDGE_TOKEN_HEADER, type EdgeOrigin, viewerOfEdge } from '../edge-origin.ts';
import { type ApiMiddleware, stateWith } from '../request-state.ts';

/**
 * Resolves the client's address from the gateway's source IP and the `X-Forwarded-For` hops of trusted
 * proxies; also the address the peer forwards, which counts only when a staff credential vouches for it
 * (which the authorisation step decides). Behind `edge`, a request that came through it starts from the
 * viewer CloudFront saw, as if the viewer had called the gateway itself.
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
    const viewer = edge && viewerOfEdge({ edge, ...sent, token: event.headers?.[EDGE_TOKEN_HEADER] });
    const options = { ...(viewer ?? sent), trusted: trustedOf(state.config) };
    state.clientAddress = resolveClientAddress(options);
    state.forwardedAddress = resolveClientAddress({ ...options, vouched: true });
  },
});
