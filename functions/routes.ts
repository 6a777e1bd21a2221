import { createMatcher } from '#lib/http/route-match.ts';
import { rowsOf } from '#lib/http/routes.ts';
import {
  customerFindRoute,
  customerGetRoute,
  webhookDeliveriesRoute,
  webhookEnableRoute,
  webhookListRoute,
  webhookReplayRoute,
} from './admin/table.ts';
import { bookingManageRoute, bookingTokenRoute } from './bookings/guest-table.ts';
import {
  bookingBookmarkRoute,
  bookingCheckinRoute,
  bookingCheckoutRoute,
  bookingCreateRoute,
  bookingFormRoute,
  bookingGetRoute,
  bookingIndexRoute,
  bookingInvoiceRoute,
  bookingListRoute,
  bookingNoteRoute,
  bookingNotesRoute,
  bookingUpdateRoute,
} from './bookings/table.ts';
import { bookingIcalRoute, channelListRoute, channelSyncRoute, itemIcalRoute } from './channels/table.ts';
import { itemCalRoute, itemGetRoute, itemItemCalRoute, itemListRoute } from './items/table.ts';
import {
  accountRoute,
  bookPageRoute,
  categoryRoute,
  companyRoute,
  docsAssetRoute,
  docsRoute,
  eventGetRoute,
  eventListRoute,
  helpRoute,
  managePageRoute,
  openapiRoute,
  pingRoute,
  widgetFileRoute,
} from './meta/table.ts';
import {
  guestCancelQuoteRoute,
  guestCancelRoute,
  guestChangeQuoteRoute,
  guestChangeRoute,
  paymentCaptureRoute,
  paymentRefundRoute,
  stripeWebhookRoute,
} from './payments/table.ts';
import { sessionClearRoute, sessionEndRoute, sessionWriteRoute } from './session/table.ts';

/**
 * The route table: every route of every group, in the order the OpenAPI document lists them. The CDK's HTTP
 * API routes, the local gateway and the document are built from it; each function's router knows its own
 * group's routes (and the meta function, which answers every unknown path, the others' methods and paths).
 */
export const DECLARED_ROUTES = [
  itemListRoute,
  itemCalRoute,
  itemGetRoute,
  itemIcalRoute,
  itemItemCalRoute,
  sessionWriteRoute,
  sessionClearRoute,
  sessionEndRoute,
  bookingFormRoute,
  bookingCreateRoute,
  bookingListRoute,
  bookingIndexRoute,
  bookingGetRoute,
  bookingInvoiceRoute,
  bookingManageRoute,
  bookingTokenRoute,
  bookingCheckinRoute,
  bookingCheckoutRoute,
  bookingUpdateRoute,
  bookingBookmarkRoute,
  bookingNoteRoute,
  customerFindRoute,
  customerGetRoute,
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
  webhookListRoute,
  webhookDeliveriesRoute,
  webhookReplayRoute,
  webhookEnableRoute,
  bookingIcalRoute,
  channelListRoute,
  channelSyncRoute,
  bookingNotesRoute,
  bookPageRoute,
  managePageRoute,
  widgetFileRoute,
  stripeWebhookRoute,
  paymentCaptureRoute,
  paymentRefundRoute,
  guestCancelQuoteRoute,
  guestCancelRoute,
  guestChangeQuoteRoute,
  guestChangeRoute,
];

/** The rows of the route table, one a method. */
export const ROUTES = rowsOf(DECLARED_ROUTES);

/** The name of a route of the table. */
export type RouteName = (typeof DECLARED_ROUTES)[number]['name'];

/** A map with an entry for every route of the table, so none can be left out. */
export type ByRoute<T> = Record<RouteName, T>;

/** The table's matcher, as API Gateway would route (tests and the local gateway ask it). */
export const matchRoute = createMatcher(ROUTES);
