import { type AccessStore, type Caller, resolveCaller } from '../../access/index.ts';
import type { Db } from '../../kernel/storage/database.ts';
import { AuthError } from '../errors.ts';
import { enforceRateLimit } from '../rate-limit.ts';
import { type ApiMiddleware, type RequestState, stateWith } from '../request-state.ts';
import { requesterKeyOf } from '../requester-address.ts';
import type { Route } from '../routes.ts';

/**
 * Whose limits a call counts against. A staff credential calling for its customer (`X-On-Behalf: off`)
 * vouches for the address it forwards. A partner's does not: its customers are its own, and it is held to
 * its budgets per credential, so a made-up `X-Forwarded-For` per cart cannot buy it a fresh share.
 */
function requesterOf(
  state: RequestState & { requesterAddress: string; forwardedAddress: string },
  caller: Caller,
) {
  const ipv6Prefix = state.config?.settings.limits.ipv6_prefix;
  if (caller.kind === 'customer' && caller.partnerId !== undefined) {
    return { address: state.requesterAddress, requester: `credential:${caller.credentialKey}` };
  }
  const address =
    caller.kind === 'customer' && caller.credentialKey ? state.forwardedAddress : state.requesterAddress;
  return { address, requester: requesterKeyOf(address, ipv6Prefix) };
}

/**
 * Resolves the caller from its credential (Basic, Bearer or `access_token`) and applies the route's access
 * rule. A refused credential still costs its client a request, so guessing keys is rate limited too.
 */
export const authorise = (options: { db: Db; store: AccessStore; route: Route }): ApiMiddleware => ({
  before: async ({ event }) => {
    const state = stateWith(event, 'config', 'parsed', 'requesterAddress', 'forwardedAddress');
    const { config, parsed } = state;
    const sourceIp = event.requestContext.http.sourceIp;
    const presented = {
      authorization: parsed.headers.authorization,
      accessToken: state.accessToken,
      onBehalf: parsed.headers['x-on-behalf'],
      sourceIp,
    };
    const caller = await resolveCaller(options.store, presented, state.startedAt).catch(
      async (error: unknown) => {
        if (error instanceof AuthError) {
          state.limitHeaders = await enforceRateLimit(options.db, {
            counter: `client:${requesterKeyOf(state.requesterAddress, config.settings.limits.ipv6_prefix)}`,
            budgets: { requests: config.settings.limits.requests_per_minute },
            now: state.startedAt,
          });
        }
        throw error;
      },
    );
    const { address, requester } = requesterOf(state, caller);
    state.caller = caller;
    state.requesterAddress = address;
    state.requester = requester;
    const credentialed = caller.kind === 'staff' || caller.credentialKey !== undefined;
    const { access } = options.route;
    if (access === 'staff' && caller.kind !== 'staff') {
      throw new AuthError('unauthorized', 'Staff credentials are required');
    }
    if (access === 'public' && !config.settings.public_api && !credentialed) {
      throw new AuthError('unauthorized', 'This API requires credentials');
    }
    if (access === 'token' && caller.kind !== 'staff' && typeof parsed.input.token !== 'string') {
      throw new AuthError('unauthorized', 'Staff credentials or the booking token are required');
    }
  },
});
