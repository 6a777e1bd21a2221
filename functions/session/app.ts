import { type ApiDeps, createApiHandler, slipKeysOf } from '#lib/http/api.ts';
import { createClearSession, createEndSession, createWriteSession, sessionErrorCookies } from './routes.ts';

/** The session group: the cart that holds stock (add, alter, read, clear, end). */
export const createSessionHandler = (deps: ApiDeps) => {
  const routeDeps = { db: deps.db, slipKeys: slipKeysOf(deps) };
  const write = createWriteSession(routeDeps);
  const clear = createClearSession(routeDeps);
  const end = createEndSession(routeDeps);
  return createApiHandler({
    group: 'session',
    deps,
    routes: { 'session.write': write, 'session.clear': clear, 'session.end': end },
    errorCookies: sessionErrorCookies,
  });
};
