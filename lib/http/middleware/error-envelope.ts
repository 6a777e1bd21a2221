import { randomUUID } from 'node:crypto';
import type { StoredConfig } from '../../config/index.ts';
import { envelopeContext } from '../envelope-context.ts';
import { AuthError } from '../errors.ts';
import { type ApiMiddleware, type RequestState, stateOf } from '../request-state.ts';
import { errorResponse, unauthorizedResponse } from '../respond.ts';

const lowerCaseKeys = (headers: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), value]],
    ),
  );

/**
 * Turns every error into its answer in one place: a refused credential into the 401 body, anything else
 * into the error envelope (an unexpected error into a 500 that names the request id, its cause logged).
 * The envelope names the tenant even when the error came before the configuration was read.
 */
export const errorEnvelope = (options: {
  clock: () => number;
  loadConfig: (now: number) => Promise<StoredConfig>;
  /** Cookies a group sets on an error response (the session group clears a lost session's cookie). */
  errorCookies?: ((error: unknown, headers: Record<string, string>) => string[]) | undefined;
}): ApiMiddleware => ({
  onError: async (request) => {
    const { event, error } = request;
    const state: RequestState = stateOf(event) ?? {
      requestId: randomUUID(),
      startedAt: options.clock(),
      resource: '',
      id: '',
      ignored: new Set<string>(),
    };
    const sourceIp = event.requestContext?.http?.sourceIp;
    if (error instanceof AuthError) {
      request.response = unauthorizedResponse(state, error, sourceIp);
      return;
    }
    state.config ??= await options.loadConfig(options.clock()).catch(() => undefined);
    request.response = errorResponse(state, {
      error,
      context: envelopeContext(state, event.requestContext?.http?.method ?? 'GET', options.clock()),
      sourceIp,
      cookies: options.errorCookies?.(error, lowerCaseKeys(event.headers ?? {})) ?? [],
    });
  },
});
