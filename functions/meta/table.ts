import { z } from 'zod';
import type { ApiDeps, RouteDeclaration } from '#lib/http/group-handler.ts';
import { DEFAULT_PUBLIC_URL } from '#lib/http/public-url.ts';
import type { KnownRoute } from '#lib/http/route-match.ts';
import { noParameters } from '#lib/http/validate.ts';
import { eventSchema, flag, int, keyed } from '../resource-schemas.ts';
import { envelope } from '../responses.ts';
import { describeRoute } from '../route-docs.ts';
import { createListAccounts } from './account.ts';
import { createBookPage } from './book-page.ts';
import { createListCategories } from './category.ts';
import { getCompany } from './company.ts';
import { getDocs, getDocsAsset, getOpenApi } from './docs.ts';
import { createGetEvent, createListEvents, eventListSchema } from './events.ts';
import { createHelp } from './help.ts';
import { createManagePage } from './manage-page.ts';
import { createPing } from './ping.ts';
import { createWidgetFiles } from './widget.ts';

/** What the meta group's routes share: the API's dependencies, and where the built widget is read from (tests). */
export type MetaContext = ApiDeps & {
  widgetDir?: string;
  /** The route table, every group's rows (the help's endpoint table). */
  table: readonly KnownRoute[];
};

// The meta group's routes: each one's row of the route table and its implementation, with its documentation
// beside it (a `DOCS` statement, which the functions' bundles leave out: the OpenAPI document and the tests
// read it).

export const companyRoute = {
  name: 'company',
  group: 'meta',
  methods: ['GET'],
  path: 'company',
  access: 'public',
  resource: 'company',
  id: '',
  handler: () => getCompany,
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(companyRoute, {
  summary: 'The company behind the API',
  request: noParameters,
  response: envelope({
    company: z.looseObject({
      name: z.string(),
      currency_id: z.string(),
      timezone: z.string(),
      currency: z.object({ symbol: z.string(), decimals: int }),
      payment: z
        .strictObject({
          take: z.enum(['none', 'full', 'deposit']),
          deposit_percent: z.number().optional().describe('The deposit, a percent of what is due.'),
          deposit_amount: z
            .string()
            .optional()
            .describe('The deposit, an amount (never more than what is due).'),
          pay_within_minutes: int
            .optional()
            .describe('How long a booking waits for the payment, then lets go.'),
          capture: z.enum(['automatic', 'manual']).optional(),
          balance_due_days_before_start: int.optional().describe("When a deposit's rest falls due."),
        })
        .describe('How the business takes payment at booking (issue 43).'),
    }),
  }),
});

export const categoryRoute = {
  name: 'category',
  group: 'meta',
  methods: ['GET'],
  path: 'category',
  access: 'public',
  resource: 'category',
  id: '',
  handler: (context) => createListCategories(context.db),
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(categoryRoute, {
  summary: 'Item categories',
  request: noParameters,
  response: envelope({
    category: keyed(z.looseObject({ category_id: int, name: z.string(), pos: int, qty: int })),
  }),
});

export const accountRoute = {
  name: 'account',
  group: 'meta',
  methods: ['GET'],
  path: 'account',
  access: 'staff',
  resource: 'account',
  id: '',
  handler: (context) => createListAccounts(context.db),
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(accountRoute, {
  summary: 'Staff accounts',
  request: noParameters,
  response: envelope({
    account: z.array(
      z.looseObject({
        account_id: int,
        login_id: z.string(),
        enabled: flag,
        partner: flag,
        date_created: int,
      }),
    ),
  }),
});

export const pingRoute = {
  name: 'ping',
  group: 'meta',
  methods: ['GET'],
  path: 'ping',
  access: 'public',
  resource: 'ping',
  id: '',
  handler: (context) => createPing(context.provider),
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(pingRoute, {
  summary: 'Health check',
  request: noParameters,
  response: envelope({
    pong: z.strictObject({ remote_addr: z.string(), time: int, timezone: z.string(), provider: z.string() }),
  }),
});

export const helpRoute = {
  name: 'help',
  group: 'meta',
  methods: ['GET'],
  path: 'help',
  access: 'public',
  resource: 'help',
  id: '',
  handler: (context) => createHelp(context.table),
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(helpRoute, {
  summary: 'The resources and where the documentation is',
  request: noParameters,
  response: envelope({
    help: z.strictObject({
      resources: z.array(z.string()),
      documentation: z.string().url(),
      openapi: z.string().url(),
    }),
  }),
});

export const openapiRoute = {
  name: 'openapi',
  group: 'meta',
  methods: ['GET'],
  path: 'openapi.json',
  access: 'public',
  resource: 'openapi',
  id: '',
  handler: () => getOpenApi,
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(openapiRoute, {
  summary: 'This OpenAPI description',
  request: noParameters,
  response: z.looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  }),
});

export const docsRoute = {
  name: 'docs',
  group: 'meta',
  methods: ['GET'],
  path: 'docs',
  access: 'public',
  resource: 'docs',
  id: '',
  handler: () => getDocs,
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(docsRoute, {
  summary: 'The API reference page',
  request: noParameters,
  raw: { 'text/html': { schema: { type: 'string' } } },
});

export const docsAssetRoute = {
  name: 'docs.asset',
  group: 'meta',
  methods: ['GET'],
  path: 'docs/{asset}',
  access: 'public',
  resource: 'docs',
  id: '',
  handler: () => getDocsAsset,
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(docsAssetRoute, {
  summary: 'A file of the reference page',
  request: noParameters,
  raw: {
    'application/javascript': { schema: { type: 'string' } },
    'text/css': { schema: { type: 'string' } },
  },
});

export const eventListRoute = {
  name: 'event.list',
  group: 'meta',
  methods: ['GET'],
  path: 'event',
  access: 'staff',
  resource: 'event',
  id: '',
  handler: (context) => createListEvents(context.db),
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(eventListRoute, {
  summary: 'Rate events: seasonal rates, discounts, closed days',
  request: eventListSchema,
  response: envelope({ events: keyed(eventSchema) }),
});

export const eventGetRoute = {
  name: 'event.get',
  group: 'meta',
  methods: ['GET'],
  path: 'event/{event_id}',
  access: 'staff',
  resource: 'event',
  id: '',
  handler: (context) => createGetEvent(context.db),
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(eventGetRoute, {
  summary: 'One rate event',
  request: noParameters,
  response: envelope({ event: eventSchema }),
});

// Outside the API: a guest's page and the widget's files, served from the site's root.

export const bookPageRoute = {
  name: 'book',
  group: 'meta',
  methods: ['GET', 'HEAD'],
  path: 'book',
  access: 'public',
  resource: 'book',
  id: '',
  kind: 'page',
  // The page reads the tenant's configuration, but is a page for guests, not an API answer.
  serve: (context) =>
    createBookPage({
      db: context.db,
      publicUrl: context.publicUrl ?? (() => DEFAULT_PUBLIC_URL),
      configTtlMs: context.configTtlMs,
      clock: context.clock,
    }),
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(bookPageRoute, {
  summary: "The tenant's booking page: the company, the widget on a month of availability, the policy",
  raw: { 'text/html': { schema: { type: 'string' } } },
});

export const managePageRoute = {
  name: 'manage',
  group: 'meta',
  methods: ['GET', 'HEAD'],
  path: 'manage',
  access: 'public',
  resource: 'manage',
  id: '',
  kind: 'page',
  // The same page for every well-formed link: its script asks the API, which checks the token.
  serve: (context) =>
    createManagePage({ db: context.db, configTtlMs: context.configTtlMs, clock: context.clock }),
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(managePageRoute, {
  summary: "The guest's page of their booking (`?booking=CODE&token=T`): see it, cancel it under its policy",
  raw: { 'text/html': { schema: { type: 'string' } } },
});

export const widgetFileRoute = {
  name: 'widget.file',
  group: 'meta',
  methods: ['GET', 'HEAD'],
  path: 'widget/{file}',
  access: 'public',
  resource: 'widget',
  id: '',
  kind: 'file',
  // Static code: no tenant read, no credentials, no envelope; a name not on the list is the API's 404.
  serve: (context) => createWidgetFiles(context.widgetDir),
} as const satisfies RouteDeclaration<MetaContext>;

DOCS: describeRoute(widgetFileRoute, {
  summary: "The booking widget's files (its script and pictures), for a business's pages",
  raw: { 'application/javascript': { schema: { type: 'string' } } },
});

/** The meta group's routes, in the table's order. */
export const META_ROUTES = [
  bookPageRoute,
  managePageRoute,
  widgetFileRoute,
  companyRoute,
  categoryRoute,
  accountRoute,
  pingRoute,
  helpRoute,
  openapiRoute,
  docsRoute,
  docsAssetRoute,
  eventListRoute,
  eventGetRoute,
];
