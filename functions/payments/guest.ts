import * as z from 'zod/mini';
import { assertNotPartner } from '#lib/access/index.ts';
import {
  type BookingRecord,
  type CancelActor,
  cancelForGuest,
  findBooking,
  type GuestCancelQuote,
  guestCancelQuote,
  openGuestBooking,
  shownQuote,
} from '#lib/bookings/index.ts';
import { ApiError, validationError } from '#lib/http/errors.ts';
import type { ApiRequest, RouteHandler } from '#lib/http/group-handler.ts';
import { booleanParam, parseInput } from '#lib/http/validate.ts';
import { formatAmount, toMinor } from '#lib/kernel/money.ts';
import { PaymentProviderError } from '#lib/payments/index.ts';
import type { PaymentsContext } from './webhook.ts';

// The guest's cancel of their own booking (issue 44, item 3), in the payments function beside the provider's
// adapter and staff's refunds: the refund it makes is a provider call, and the bookings function has no room.

// The guest sends the token; staff send their credentials instead, and may ask to `override` the policy
// where it lets them (past its cutoff, with a `refund` of their own).
export const token = z.optional(z.string().check(z.minLength(1), z.maxLength(128)));
const staffOverride = {
  override: z.optional(booleanParam),
  refund: z.optional(
    z.string().check(z.maxLength(20), z.regex(/^\d+(\.\d+)?$/, 'a decimal amount such as "20.00"')),
  ),
};

export const cancelQuoteQuery = z.strictObject({ token, ...staffOverride });

export const cancelConfirmSchema = z.strictObject({
  token,
  quote: z.string().check(z.minLength(1), z.maxLength(64)),
  ...staffOverride,
});

/** A quote as the guest reads it: amounts as money, the cutoff in Unix seconds, and a sentence. */
function presentQuote(request: ApiRequest, quote: GuestCancelQuote) {
  const money = (minor: number) => formatAmount(minor, request.config.locale.decimals);
  const { currency } = request.config.locale;
  const kept = [
    quote.fee > 0 ? `a fee of ${money(quote.fee)} ${currency}` : '',
    quote.deposit_kept > 0 ? `the deposit of ${money(quote.deposit_kept)} ${currency}` : '',
  ].filter(Boolean);
  return {
    ...shownQuote(request, quote),
    text:
      quote.paid === 0
        ? 'Nothing was paid, so nothing is refunded.'
        : `You get back ${money(quote.refund)} ${currency} of the ${money(quote.paid)} ${currency} paid${kept.length ? ` (${kept.join(' and ')} ${kept.length > 1 ? 'are' : 'is'} kept)` : ''}.`,
  };
}

export const guestContextOf = (deps: PaymentsContext, request: ApiRequest) => ({
  db: deps.db,
  config: request.config,
  requester: request.requester,
  now: request.now,
});

/**
 * The booking and who acts on it: the guest who holds its token, or staff by their credentials (a partner's
 * own, only its bookings; the override, staff of the business only).
 */
export async function opened(
  deps: PaymentsContext,
  request: ApiRequest,
  input: { token?: string | undefined; override?: boolean | undefined; refund?: string | undefined },
): Promise<{ record: BookingRecord; actor: CancelActor }> {
  const reference = request.params.booking_id ?? '';
  if (input.token !== undefined || request.caller.kind !== 'staff') {
    if (input.override !== undefined || input.refund !== undefined)
      throw validationError({ override: 'staff only, with their credentials and no token' });
    const record = await openGuestBooking(guestContextOf(deps, request), reference, input.token ?? '');
    return { record, actor: { kind: 'guest' } };
  }
  if (input.refund !== undefined && !input.override)
    throw validationError({ refund: 'only with override=1' });
  if (input.override) assertNotPartner(request.caller, 'payments');
  const record = await findBooking(deps.db, reference, request.caller);
  const refund = input.refund === undefined ? undefined : toMinorOf(request, input.refund);
  return {
    record,
    actor: {
      kind: 'staff',
      accountId: request.caller.accountId,
      ...(input.override ? { override: { refund } } : {}),
    },
  };
}

function toMinorOf(request: ApiRequest, amount: string): number {
  try {
    return toMinor(amount, request.config.locale.decimals);
  } catch {
    throw validationError({ refund: `at most ${request.config.locale.decimals} decimals` });
  }
}

/** GET booking/{id}/manage/cancel: what the guest would get back if they cancelled now (the quote). */
export const createCancelQuote =
  (deps: PaymentsContext): RouteHandler =>
  async (request) => {
    const query = parseInput(cancelQuoteQuery, request.input);
    const { record, actor } = await opened(deps, request, query);
    return {
      body: {
        cancellation: presentQuote(request, guestCancelQuote(guestContextOf(deps, request), record, actor)),
      },
      request: { id: record.booking.code, records: 1 },
    };
  };

/**
 * POST booking/{id}/manage/cancel: cancels the booking for its guest, holding to the quote they saw. Sent
 * again, it answers the same. The provider unavailable for the refund: 503, the booking cancelled and the
 * refund recorded as owed; the same request sent again makes it.
 */
export const createCancelConfirm =
  (deps: PaymentsContext): RouteHandler =>
  async (request) => {
    const input = parseInput(cancelConfirmSchema, request.input);
    const { record, actor } = await opened(deps, request, input);
    const context = {
      ...guestContextOf(deps, request),
      caller: request.caller,
      provider: await deps.payments?.(),
    };
    const done = await cancelForGuest(context, record, input.quote, actor).catch((error: unknown) => {
      if (!(error instanceof PaymentProviderError)) throw error;
      throw new ApiError('busy', {
        details:
          'Your booking is cancelled, but the refund could not be sent to the payment provider yet: send this again in a minute',
        data: { provider: error.code },
        headers: { 'retry-after': '30' },
        cause: error,
      });
    });
    const after = await findBooking(deps.db, String(record.booking.booking_id), undefined);
    const money = (minor: number) => formatAmount(minor, request.config.locale.decimals);
    return {
      body: {
        cancellation: {
          ...presentQuote(request, done),
          through_provider: money(done.through_provider),
          owed: money(done.owed),
          ...(done.override ? { override: true } : {}),
        },
        // The booking's state after it; the guest's view (GET booking/{id}/manage) has the rest.
        booking: {
          code: after.booking.code,
          status_id: after.booking.status_id,
          paid_total: money(after.booking.paid_total),
        },
      },
      request: { id: record.booking.code, records: 1 },
    };
  };
