import { createCatalogReader } from '#lib/catalog/index.ts';
import { DEFAULT_CONFIG_CACHE_MS } from '#lib/config/index.ts';
import { type ApiDeps, createApiHandler, slipKeysOf } from '#lib/http/group-handler.ts';
import { sessionErrorCookies } from './routes.ts';
import { SESSION_ROUTES } from './table.ts';

/** The session group: the cart that holds stock (add, alter, read, clear, end). */
export const createSessionHandler = (deps: ApiDeps) => {
  // Items change only through a tenant load: the function keeps the catalogue as the items function does.
  const catalog = createCatalogReader(deps.db, { reuse: (deps.configTtlMs ?? DEFAULT_CONFIG_CACHE_MS) > 0 });
  const context = { db: deps.db, slipKeys: slipKeysOf(deps), catalog };
  return createApiHandler({
    group: 'session',
    deps,
    routes: SESSION_ROUTES,
    context,
    errorCookies: sessionErrorCookies,
  });
};
