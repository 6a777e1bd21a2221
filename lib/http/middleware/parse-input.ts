import { parseRequest } from '../parse.ts';
import { type ApiMiddleware, stateWith } from '../request-state.ts';

/**
 * Parses the query string or body, the headers and the cookies, refusing what is malformed or too large.
 * The `access_token` parameter is a credential, not input: it is set aside for the authorisation step.
 */
export const parseInput = (): ApiMiddleware => ({
  before: ({ event }) => {
    const state = stateWith(event);
    const parsed = parseRequest(event);
    const { access_token: accessToken, ...input } = parsed.input;
    state.parsed = { ...parsed, input };
    state.accessToken = accessToken;
  },
});
