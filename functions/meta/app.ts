import { type ApiDeps, createApiHandler } from '#lib/http/group-handler.ts';
import type { KnownRoute } from '#lib/http/route-match.ts';
import { rowsOf } from '#lib/http/routes.ts';
import { META_ROUTES } from './table.ts';

/** Options of the meta group beyond the shared dependencies. */
export interface MetaOptions {
  /** Where the built widget is read from (tests); by default beside the bundle, else widget/dist. */
  widgetDir?: string;
  /**
   * The other groups' rows of the route table: a path of theirs asked with another method is a 405 here,
   * not a 404, and the help lists them with the meta group's own.
   */
  known?: readonly KnownRoute[];
}

/**
 * The meta group: company, category, account and ping, the reference page, the tenant's booking page at
 * `GET /book` and the widget's files at `GET /widget/{file}`, and every unknown path and method ($default).
 */
export const createMetaHandler = (deps: ApiDeps, options: MetaOptions = {}) =>
  createApiHandler({
    group: 'meta',
    deps,
    routes: META_ROUTES,
    context: {
      ...deps,
      ...(options.widgetDir ? { widgetDir: options.widgetDir } : {}),
      table: [...(options.known ?? []), ...rowsOf(META_ROUTES)],
    },
    known: options.known ?? [],
  });
