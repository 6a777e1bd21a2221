import { apiDepsFromEnv } from '#lib/http/deps-from-env.ts';
import { unpackRoutes } from '#lib/http/route-match.ts';
import { createMetaHandler } from './app.ts';

declare global {
  /**
   * The other groups' rows of the route table (method, path, group, access, resource), packed, written into
   * this function's bundle at synth time (esbuild's `define`): its 405s and its help know every route without
   * the other groups' code.
   */
  var ROUTE_TABLE: string | undefined;
}

/** Lambda entry of the meta group (also the API's $default route). */
export const handler = createMetaHandler(
  apiDepsFromEnv(),
  globalThis.ROUTE_TABLE ? { known: unpackRoutes(globalThis.ROUTE_TABLE) } : {},
);
