import { type ApiDeps, createApiHandler, slipKeysOf } from '#lib/http/group-handler.ts';
import { createFindCustomer, createGetCustomer } from './customers.ts';
import { createListNotes } from './notes.ts';
import {
  createBookingForm,
  createBookmark,
  createCheck,
  createCreateBooking,
  createGetBooking,
  createGetInvoice,
  createListBookings,
  createNote,
  createUpdate,
} from './routes.ts';
import { createEnable, createListDeliveries, createListWebhooks, createReplay } from './webhooks.ts';

/**
 * The bookings group: the form, create, records, lists, invoices, actions, customers and webhooks (the
 * staff calendar feed and the channels are the channels group's).
 */
export const createBookingsHandler = (deps: ApiDeps) => {
  const routeDeps = { db: deps.db, slipKeys: slipKeysOf(deps) };
  const list = createListBookings(routeDeps);
  const check = { in: createCheck(routeDeps, 'in'), out: createCheck(routeDeps, 'out') };
  return createApiHandler({
    group: 'bookings',
    deps,
    routes: {
      'booking.form': createBookingForm(),
      'booking.create': createCreateBooking(routeDeps),
      'booking.list': list,
      'booking.index': list,
      'booking.get': createGetBooking(routeDeps),
      'booking.invoice': createGetInvoice(routeDeps),
      'booking.checkin': check.in,
      'booking.checkout': check.out,
      'booking.update': createUpdate(routeDeps),
      'booking.bookmark': createBookmark(routeDeps),
      'booking.note': createNote(routeDeps),
      'customer.find': createFindCustomer(routeDeps),
      'customer.get': createGetCustomer(routeDeps),
      'booking.notes': createListNotes(routeDeps),
      'webhook.list': createListWebhooks(routeDeps),
      'webhook.deliveries': createListDeliveries(routeDeps),
      'webhook.replay': createReplay(routeDeps),
      'webhook.enable': createEnable(routeDeps),
    },
  });
};
