import { z } from 'zod';
import type { RouteDeclaration } from '#lib/http/group-handler.ts';
import { noParameters } from '#lib/http/validate.ts';
import { cancellationTermsSchema } from '../cancellation-schema.ts';
import { int, money } from '../resource-schemas.ts';
import { envelope } from '../responses.ts';
import { describeRoute } from '../route-docs.ts';
import { createGetManaged, createRotateToken, manageQuery } from './manage.ts';
import type { BookingDeps as BookingsContext } from './routes.ts';

// The bookings group's routes of the guest's own booking (issue 44), and staff's rotation of its token.

export const bookingManageRoute = {
  name: 'booking.manage',
  group: 'bookings',
  methods: ['GET'],
  path: 'booking/{booking_id}/manage',
  access: 'token',
  resource: 'booking',
  id: '',
  handler: createGetManaged,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingManageRoute, {
  summary: "The guest's view of their booking (the booking's token)",
  request: manageQuery,
  response: envelope({
    booking: z.looseObject({
      booking_id: int,
      code: z.string(),
      status_id: z.string(),
      status_name: z.string(),
      start_date: int,
      end_date: int,
      date_desc: z.string(),
      customer_name: z.string(),
      items: z.record(
        z.string(),
        z.object({
          item_id: int,
          name: z.string(),
          unit: z.enum(['D', 'N', 'H']).describe('Sold by the day, the night or the hour.'),
          qty: int,
          param: z
            .record(z.string(), z.object({ qty: int, lbl: z.string() }))
            .describe("The line's party as booked (`param[...]` of a change), with the tenant's labels."),
          start_date: int,
          end_date: int,
          date_desc: z.string(),
          total: money,
        }),
      ),
      total: money,
      paid_total: money,
      due: money,
      payments: z
        .array(z.object({ date: int, amount: money, method: z.string() }))
        .describe('Money taken and given back (negative), oldest first.'),
      payment: z
        .object({ amount: money, deadline: int, url: z.string() })
        .optional()
        .describe('A checkout still open: what to pay, by when (Unix seconds) and where.'),
      change: z
        .object({ start_date: int, end_date: int, total: money, deadline: int })
        .optional()
        .describe(
          'A change of dates or party waiting for its difference (paid at `payment.url`): the dates and total it makes, and until when it waits.',
        ),
      invoice_url: z.string(),
      cancellation_policy: cancellationTermsSchema
        .optional()
        .describe(
          'The cancellation terms it was sold under, as staff see them (no `staff_override`); absent when none.',
        ),
    }),
  }),
  errors: ['rate_limited'],
  needs: ['guest-token'],
});

export const bookingTokenRoute = {
  name: 'booking.token',
  group: 'bookings',
  methods: ['POST'],
  path: 'booking/{booking_id}/token',
  access: 'staff',
  resource: 'booking',
  id: '',
  writes: true,
  handler: createRotateToken,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingTokenRoute, {
  summary: "Give a booking a new token: the guest's old links stop working",
  request: noParameters,
  response: envelope({
    booking: z.object({ id: z.string(), code: z.string(), token: z.string(), invoice_url: z.string() }),
  }),
  errors: ['busy'],
  needs: ['booking'],
});
