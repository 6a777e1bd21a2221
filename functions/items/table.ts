import { z } from 'zod';
import * as zm from 'zod/mini';
import type { CatalogReader } from '#lib/catalog/index.ts';
import type { RouteDeclaration } from '#lib/http/group-handler.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import type { SlipKey } from '#lib/slip/index.ts';
import { createItemCalendar, createItemsCalendar } from './calendar.ts';
import { createGetItem } from './get-item.ts';
import { createListItems } from './list-items.ts';
import { calendarQuerySchema, itemQuerySchema } from './query.ts';

/** What the items group's routes share: the table, the SLIP keys and the catalogue kept between requests. */
export interface ItemsContext {
  db: Db;
  slipKeys: () => Promise<readonly SlipKey[]>;
  catalog: CatalogReader;
}

import { calendarSchema, int, itemSchema, keyed, ratedItemSchema } from '../resource-schemas.ts';
import { envelope } from '../responses.ts';
import { describeRoute } from '../route-docs.ts';

// The items group's routes: each one's row of the route table and its implementation, with its documentation
// beside it (a `DOCS` statement, which the functions' bundles leave out: the OpenAPI document and the tests
// read it).

export const itemListRoute = {
  name: 'item.list',
  group: 'items',
  methods: ['GET'],
  path: 'item',
  access: 'public',
  resource: 'item',
  id: '',
  handler: createListItems,
} as const satisfies RouteDeclaration<ItemsContext>;

DOCS: describeRoute(itemListRoute, {
  summary: 'List items; rated for dates, with a SLIP each, when dates are given',
  request: itemQuerySchema,
  response: envelope({ items: keyed(z.union([ratedItemSchema, itemSchema])) }),
});

export const itemCalRoute = {
  name: 'item.cal',
  group: 'items',
  methods: ['GET'],
  path: 'item/cal',
  access: 'public',
  resource: 'item',
  id: 'cal',
  handler: createItemsCalendar,
} as const satisfies RouteDeclaration<ItemsContext>;

DOCS: describeRoute(itemCalRoute, {
  summary: 'Availability calendars of items',
  request: calendarQuerySchema,
  response: envelope({ items: keyed(calendarSchema) }),
});

export const itemGetRoute = {
  name: 'item.get',
  group: 'items',
  methods: ['GET'],
  path: 'item/{item_id}',
  access: 'public',
  resource: 'item',
  id: '',
  handler: createGetItem,
} as const satisfies RouteDeclaration<ItemsContext>;

DOCS: describeRoute(itemGetRoute, {
  summary: 'One item; rated for dates, with its SLIP, when dates are given',
  request: itemQuerySchema,
  response: envelope({ item: z.union([ratedItemSchema, itemSchema]) }),
});

export const itemItemCalRoute = {
  name: 'item.itemCal',
  group: 'items',
  methods: ['GET'],
  path: 'item/{item_id}/cal',
  access: 'public',
  resource: 'item',
  id: 'cal',
  handler: createItemCalendar,
} as const satisfies RouteDeclaration<ItemsContext>;

DOCS: describeRoute(itemItemCalRoute, {
  summary: "One item's availability calendar",
  request: zm.omit(calendarQuerySchema, { item_id: true, category_id: true }),
  response: envelope({ item: z.object({ item_id: int, cal: calendarSchema }) }),
});

/** The items group's routes, in the table's order. */
export const ITEMS_ROUTES = [itemListRoute, itemCalRoute, itemGetRoute, itemItemCalRoute];
