import { z } from 'zod';
import type { RouteDeclaration } from '#lib/http/group-handler.ts';
import { noParameters } from '#lib/http/validate.ts';
import {
  bookingRecordBody,
  createdSchema,
  formFieldSchema,
  int,
  listBody,
  money,
  noteSchema,
} from '../resource-schemas.ts';
import { envelope, policySchema } from '../responses.ts';
import { describeRoute } from '../route-docs.ts';
import { bookingManageRoute, bookingTokenRoute } from './guest-table.ts';
import { bookingListSchema } from './list.ts';
import { createListNotes, notesSchema } from './notes.ts';
import {
  type BookingDeps as BookingsContext,
  bookmarkSchema,
  checkSchema,
  createBookingForm,
  createBookmark,
  createCheck,
  createCreateBooking,
  createGetBooking,
  createGetInvoice,
  createListBookings,
  createNote,
  createSchema,
  createUpdate,
  invoiceQuery,
  noteSchema as noteRequest,
  recordQuery,
  updateSchema,
} from './routes.ts';

// The bookings group's routes: each one's row of the route table and its implementation, with its documentation
// beside it (a `DOCS` statement, which the functions' bundles leave out: the OpenAPI document and the tests
// read it).

export const bookingFormRoute = {
  name: 'booking.form',
  group: 'bookings',
  methods: ['GET'],
  path: 'booking/form',
  access: 'public',
  resource: 'booking',
  id: 'form',
  handler: createBookingForm,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingFormRoute, {
  summary: "The booking form and policy, with the cancellation terms at the cart's dates",
  request: noParameters,
  response: envelope({
    booking_form_ui: z
      .object({
        msg: z.array(z.unknown()),
        errors: int,
        mode: z.string(),
        _cnf: z.array(z.unknown()),
        booking_policy: policySchema,
      })
      .catchall(formFieldSchema),
    booking_policy: policySchema,
  }),
});

export const bookingCreateRoute = {
  name: 'booking.create',
  group: 'bookings',
  methods: ['POST'],
  path: 'booking/create',
  access: 'public',
  resource: 'booking',
  id: 'create',
  writes: true,
  handler: createCreateBooking,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingCreateRoute, {
  summary: 'Book the cart (or SLIPs directly)',
  request: createSchema,
  response: envelope({ booking: createdSchema }),
  errors: [
    'invalid_slip',
    'unavailable',
    'hold_limit',
    'challenge_required',
    'session_expired',
    'session_empty',
    'in_progress',
    'idempotency_mismatch',
    'not_found',
    'busy',
  ],
  needs: ['cart'],
});

export const bookingListRoute = {
  name: 'booking.list',
  group: 'bookings',
  methods: ['GET'],
  path: 'booking',
  access: 'staff',
  resource: 'booking',
  id: 'index',
  handler: createListBookings,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingListRoute, {
  summary: 'List bookings, filtered and paged',
  request: bookingListSchema,
  response: envelope(listBody),
});

export const bookingIndexRoute = {
  name: 'booking.index',
  group: 'bookings',
  methods: ['GET'],
  path: 'booking/index',
  access: 'staff',
  resource: 'booking',
  id: 'index',
  handler: createListBookings,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingIndexRoute, {
  summary: 'List bookings, filtered and paged',
  request: bookingListSchema,
  response: envelope(listBody),
});

export const bookingGetRoute = {
  name: 'booking.get',
  group: 'bookings',
  methods: ['GET'],
  path: 'booking/{booking_id}',
  access: 'staff',
  resource: 'booking',
  id: '',
  handler: createGetBooking,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingGetRoute, {
  summary: 'One booking, with its audit trail on request',
  request: recordQuery,
  response: envelope(bookingRecordBody),
  needs: ['booking'],
});

export const bookingInvoiceRoute = {
  name: 'booking.invoice',
  group: 'bookings',
  methods: ['GET'],
  path: 'booking/{booking_id}/invoice',
  access: 'token',
  resource: 'booking',
  id: '',
  handler: createGetInvoice,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingInvoiceRoute, {
  summary: "A booking's invoice (staff, or the booking's token)",
  request: invoiceQuery,
  response: envelope({
    booking: z.object({
      invoice: z.looseObject({
        booking_id: int,
        code: z.string(),
        partner_id: int,
        paid: money.describe(
          'Taken in all (gift certificates included): `paid` − `refunded` is `paid_total`.',
        ),
        refunded: money.describe('Given back.'),
        due: money,
        html: z.string(),
      }),
    }),
  }),
  needs: ['booking-token'],
});

export const bookingCheckinRoute = {
  name: 'booking.checkin',
  group: 'bookings',
  methods: ['GET', 'POST'],
  path: 'booking/{booking_id}/checkin',
  access: 'staff',
  resource: 'booking',
  id: '',
  handler: (context) => createCheck(context, 'in'),
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingCheckinRoute, {
  summary: 'Check a booking in',
  request: checkSchema,
  response: envelope(bookingRecordBody),
  errors: ['invalid_status', 'busy'],
  needs: ['booking'],
});

export const bookingCheckoutRoute = {
  name: 'booking.checkout',
  group: 'bookings',
  methods: ['GET', 'POST'],
  path: 'booking/{booking_id}/checkout',
  access: 'staff',
  resource: 'booking',
  id: '',
  handler: (context) => createCheck(context, 'out'),
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingCheckoutRoute, {
  summary: 'Check a booking out',
  request: checkSchema,
  response: envelope(bookingRecordBody),
  errors: ['invalid_status', 'busy'],
  needs: ['booking'],
});

export const bookingUpdateRoute = {
  name: 'booking.update',
  group: 'bookings',
  methods: ['GET', 'POST'],
  path: 'booking/{booking_id}/update',
  access: 'staff',
  resource: 'booking',
  id: '',
  handler: createUpdate,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingUpdateRoute, {
  summary: 'Change a booking status, or record its payment',
  request: updateSchema,
  response: envelope(bookingRecordBody),
  errors: ['invalid_status', 'nothing_due', 'unavailable', 'busy'],
  needs: ['booking'],
});

export const bookingBookmarkRoute = {
  name: 'booking.bookmark',
  group: 'bookings',
  methods: ['GET', 'POST'],
  path: 'booking/{booking_id}/bookmark',
  access: 'staff',
  resource: 'booking',
  id: '',
  handler: createBookmark,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingBookmarkRoute, {
  summary: "Set or clear the acting account's bookmark",
  request: bookmarkSchema,
  response: envelope(bookingRecordBody),
  errors: ['busy'],
  needs: ['booking'],
});

export const bookingNoteRoute = {
  name: 'booking.note',
  group: 'bookings',
  methods: ['GET', 'POST'],
  path: 'booking/{booking_id}/note',
  access: 'staff',
  resource: 'booking',
  id: '',
  handler: createNote,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingNoteRoute, {
  summary: 'Add a note to a booking',
  request: noteRequest,
  response: envelope(bookingRecordBody),
  errors: ['busy'],
  needs: ['booking'],
});

export const bookingNotesRoute = {
  name: 'booking.notes',
  group: 'bookings',
  methods: ['GET'],
  path: 'booking/notes',
  access: 'staff',
  resource: 'booking',
  id: 'notes',
  handler: createListNotes,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingNotesRoute, {
  summary: 'Notes across bookings, newest first',
  request: notesSchema,
  response: envelope({ notes: z.array(noteSchema) }),
});

/** The bookings group's routes, in the table's order. */
export const BOOKINGS_ROUTES = [
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
  bookingNotesRoute,
];
