import { type ApiDeps, createApiHandler } from '#lib/http/api.ts';
import { createListAccounts } from './account.ts';
import { createListCategories } from './category.ts';
import { getCompany } from './company.ts';
import { getDocs, getDocsAsset, getOpenApi } from './docs.ts';
import { createGetEvent, createListEvents } from './events.ts';
import { getHelp } from './help.ts';
import { createPing } from './ping.ts';

/** The meta group: company, category, account and ping, plus every unknown path and method ($default). */
export const createMetaHandler = (deps: ApiDeps) =>
  createApiHandler({
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
