import type { CatalogReader } from '#lib/catalog/index.ts';
import type { FeedRequest, FeedResponse } from '#lib/channels/index.ts';
import type { RouteDeclaration } from '#lib/http/group-handler.ts';
import { noParameters } from '#lib/http/validate.ts';
import type { OutboundPolicy } from '#lib/kernel/outbound/address-guard.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { createListChannels, createSyncChannel } from './admin.ts';
import { createBookingsFeed } from './bookings-feed.ts';
import { feedQuerySchema } from './feed-answer.ts';
import { createItemFeed } from './item-feed.ts';

/** What the channels group's routes share: the table, the catalogue kept between requests, and how feeds are fetched. */
export interface ChannelsContext {
  db: Db;
  catalog: CatalogReader;
  fetchFeed: (request: FeedRequest) => Promise<FeedResponse>;
  policy: OutboundPolicy;
  /** The CPU time one feed's read may take (READ_BUDGET_MS unless the runner's CHANNEL_READ_BUDGET_MS says). */
  readBudgetMs?: number;
}

import { channelSchema, channelSyncSchema, keyed } from '../resource-schemas.ts';
import { envelope } from '../responses.ts';
import { describeRoute } from '../route-docs.ts';

// The channels group's routes: each one's row of the route table and its implementation, with its documentation
// beside it (a `DOCS` statement, which the functions' bundles leave out: the OpenAPI document and the tests
// read it).

export const itemIcalRoute = {
  name: 'item.ical',
  group: 'channels',
  methods: ['GET'],
  path: 'item/{item_id}/ical',
  access: 'feed',
  resource: 'item',
  id: 'ical',
  handler: (context) => createItemFeed(context),
} as const satisfies RouteDeclaration<ChannelsContext>;

DOCS: describeRoute(itemIcalRoute, {
  summary:
    "An item's channel feed (iCalendar): the dates it cannot be sold on, for Airbnb, Booking.com and the like",
  request: feedQuerySchema,
  raw: { 'text/calendar': { schema: { type: 'string' } } },
  needs: ['feed-token'],
});

export const bookingIcalRoute = {
  name: 'booking.ical',
  group: 'channels',
  methods: ['GET'],
  path: 'booking/ical',
  access: 'feed',
  resource: 'booking',
  id: 'ical',
  handler: (context) => createBookingsFeed(context),
} as const satisfies RouteDeclaration<ChannelsContext>;

DOCS: describeRoute(bookingIcalRoute, {
  summary: 'The staff calendar feed (iCalendar): every active booking as an event',
  request: feedQuerySchema,
  raw: { 'text/calendar': { schema: { type: 'string' } } },
  errors: ['not_found'],
  needs: ['feed-token'],
});

export const channelListRoute = {
  name: 'channel.list',
  group: 'channels',
  methods: ['GET'],
  path: 'channel',
  access: 'staff',
  resource: 'channel',
  id: '',
  handler: (context) => createListChannels(context),
} as const satisfies RouteDeclaration<ChannelsContext>;

DOCS: describeRoute(channelListRoute, {
  summary: 'Imported channel feeds with their sync state and open conflicts',
  request: noParameters,
  response: envelope({ channels: keyed(channelSchema) }),
});

export const channelSyncRoute = {
  name: 'channel.sync',
  group: 'channels',
  methods: ['GET', 'POST'],
  path: 'channel/{channel_id}/sync',
  access: 'staff',
  resource: 'channel',
  id: '',
  handler: (context) => createSyncChannel(context),
} as const satisfies RouteDeclaration<ChannelsContext>;

DOCS: describeRoute(channelSyncRoute, {
  summary: "Sync one channel's feed now",
  request: noParameters,
  response: envelope({ channel: channelSchema, sync: channelSyncSchema }),
  errors: ['busy'],
  needs: ['channel'],
});

/** The channels group's routes, in the table's order. */
export const CHANNELS_ROUTES = [itemIcalRoute, bookingIcalRoute, channelListRoute, channelSyncRoute];
