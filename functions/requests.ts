import * as z from 'zod/mini';
import type { ByRoute } from '#lib/http/routes.ts';
import { noParameters } from '#lib/http/validate.ts';
import { customerQuery } from './bookings/customers.ts';
import { bookingListSchema } from './bookings/list.ts';
import { notesSchema } from './bookings/notes.ts';
import {
  bookmarkSchema,
  checkSchema,
  createSchema,
  invoiceQuery,
  noteSchema,
  recordQuery,
  updateSchema,
} from './bookings/routes.ts';
import { pagingSchema, replaySchema } from './bookings/webhooks.ts';
import { feedQuerySchema } from './channels/feed-answer.ts';
import { calendarQuerySchema, itemQuerySchema } from './items/query.ts';
import { eventListSchema } from './meta/events.ts';
import { sessionSchema } from './session/input.ts';

// One request schema per route of the route table: the very schemas the routes validate with. The
// OpenAPI description is generated from these and the response schemas, so it cannot drift.

/** The parameters of every route (query string for GET, form or JSON body for POST), by route name. */
export const REQUESTS: ByRoute<z.ZodMiniType> = {
  'item.list': itemQuerySchema,
  'item.get': itemQuerySchema,
  'item.cal': calendarQuerySchema,
  // One item's calendar refuses the list's filters (400), so its description leaves them out.
  'item.itemCal': z.omit(calendarQuerySchema, { item_id: true, category_id: true }),
  'item.ical': feedQuerySchema,
  'session.write': sessionSchema,
  'session.clear': noParameters,
  'session.end': noParameters,
  'booking.form': noParameters,
  'booking.create': createSchema,
  'booking.list': bookingListSchema,
  'booking.index': bookingListSchema,
  'booking.notes': notesSchema,
  'booking.get': recordQuery,
  'booking.invoice': invoiceQuery,
  'booking.checkin': checkSchema,
  'booking.checkout': checkSchema,
  'booking.update': updateSchema,
  'booking.bookmark': bookmarkSchema,
  'booking.note': noteSchema,
  'customer.find': customerQuery,
  'customer.get': noParameters,
  company: noParameters,
  category: noParameters,
  account: noParameters,
  ping: noParameters,
  help: noParameters,
  openapi: noParameters,
  docs: noParameters,
  'docs.asset': noParameters,
  'event.list': eventListSchema,
  'event.get': noParameters,
  'booking.ical': feedQuerySchema,
  'channel.list': noParameters,
  'channel.sync': noParameters,
  'webhook.list': noParameters,
  'webhook.deliveries': pagingSchema,
  'webhook.replay': replaySchema,
  'webhook.enable': noParameters,
};
