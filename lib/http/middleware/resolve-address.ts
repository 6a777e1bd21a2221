import type { StoredConfig } from '../../db/tenant-repository.ts';
import { resolveClientAddress, type TrustedProxies } from '../client-address.ts';
import { type ApiMiddleware, stateWith } from '../request-state.ts';

/**
 * Resolves the client's address from the gateway's source IP and the `X-Forwarded-For` hops of trusted
 * proxies; also the address the peer forwards, which counts only when a staff credential vouches for it
 * (which the authorisation step decides).
 */
export const resolveAddress = (trustedOf: (config: StoredConfig) => TrustedProxies): ApiMiddleware => ({
  before: ({ event }) => {
    const state = stateWith(event, 'config');
    const options = {
      peer: event.requestContext.http.sourceIp,
      forwardedFor: event.headers?.['x-forwarded-for'],
      trusted: trustedOf(state.config),
    };
    state.clientAddress = resolveClientAddress(options);
    state.forwardedAddress = resolveClientAddress({ ...options, vouched: true });
  },
});
