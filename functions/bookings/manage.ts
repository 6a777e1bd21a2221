import * as z from 'zod/mini';
import { openGuestBooking, rotateBookingToken } from '#lib/bookings/index.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import { invoiceUrl } from './present.ts';
import { presentGuestBooking } from './present-guest.ts';
import { type BookingDeps, contextOf } from './routes.ts';

// The guest's own booking (issue 44): what the token opens, and staff's way to take a leaked link back.

export const manageQuery = z.strictObject({
  token: z.string().check(z.minLength(1), z.maxLength(128)),
});

/**
 * GET booking/{id}/manage: the booking as its guest sees it, for whoever holds its token. A wrong or old
 * token gets the answer an unknown booking gets (404), and costs one of the client's hourly guesses.
 */
export const createGetManaged =
  (deps: BookingDeps): RouteHandler =>
  async ({ input, params, config, requester, now, apiUrl }) => {
    const { token } = parseInput(manageQuery, input);
    const record = await openGuestBooking(
      { db: deps.db, config, requester, now },
      params.booking_id ?? '',
      token,
    );
    return {
      body: { booking: presentGuestBooking(record, config, apiUrl, now) },
      request: { id: record.booking.code, records: 1 },
    };
  };

/** POST booking/{id}/token (staff): a new token; the invoice and manage links that carried the old one stop working. */
export const createRotateToken =
  (deps: BookingDeps): RouteHandler =>
  async (request) => {
    parseInput(noParameters, request.input);
    const booking = await rotateBookingToken(await contextOf(deps, request), request.params.booking_id ?? '');
    return {
      body: {
        booking: {
          id: booking.code,
          code: booking.code,
          token: booking.token,
          invoice_url: invoiceUrl(booking, request.apiUrl),
        },
      },
      request: { id: booking.code, records: 1 },
    };
  };
