import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { type ApiDeps, createApiHandler } from '#lib/http/group-handler.ts';
import { DEFAULT_PUBLIC_URL } from '#lib/http/public-url.ts';
import { createListAccounts } from './account.ts';
import { createBookPage } from './book-page.ts';
import { createListCategories } from './category.ts';
import { getCompany } from './company.ts';
import { getDocs, getDocsAsset, getOpenApi } from './docs.ts';
import { createGetEvent, createListEvents } from './events.ts';
import { getHelp } from './help.ts';
import { createPing } from './ping.ts';
import { createWidgetFiles } from './widget.ts';

/** Options of the meta group beyond the shared dependencies. */
export interface MetaOptions {
  /** Where the built widget is read from (tests); by default beside the bundle, else widget/dist. */
  widgetDir?: string;
}

/**
 * The meta group: company, category, account and ping, plus every unknown path and method ($default),
 * the widget's files at `GET /widget/{file}` and the tenant's booking page at `GET /book`.
 */
export const createMetaHandler = (deps: ApiDeps, options: MetaOptions = {}) => {
  const api = createApiHandler({
    group: 'meta',
    deps,
    routes: {
      company: getCompany,
      category: createListCategories(deps.db),
      account: createListAccounts(deps.db),
      ping: createPing(deps.provider),
      help: getHelp,
      openapi: getOpenApi,
      docs: getDocs,
      'docs.asset': getDocsAsset,
      'event.list': createListEvents(deps.db),
      'event.get': createGetEvent(deps.db),
    },
  });
  // The widget's files are static code, outside the API: no tenant read, no credentials, no envelope.
  // Every other request, unknown widget names included, goes to the API (its 404 envelope).
  const serveWidget = createWidgetFiles(options.widgetDir);
  // The booking page reads the tenant's configuration, but is a page for guests, not an API answer.
  const serveBookPage = createBookPage({
    db: deps.db,
    publicUrl: deps.publicUrl ?? (() => DEFAULT_PUBLIC_URL),
    configTtlMs: deps.configTtlMs,
  });
  return async (
    event: APIGatewayProxyEventV2,
    context: Context,
  ): Promise<APIGatewayProxyStructuredResultV2> =>
    serveWidget(event) ?? (await serveBookPage(event)) ?? api(event, context);
};
