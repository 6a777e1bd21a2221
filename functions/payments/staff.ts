import * as z from 'zod/mini';
import { assertNotPartner } from '#lib/access/index.ts';
import {
  type BookingRecord,
  capturePayment,
  refundPayment,
  type StaffPaymentContext,
} from '#lib/bookings/index.ts';
import { ApiError, validationError } from '#lib/http/errors.ts';
import type { ApiRequest, RouteHandler } from '#lib/http/group-handler.ts';
import { parseInput } from '#lib/http/validate.ts';
import { formatAmount, toMinor } from '#lib/kernel/money.ts';
import { PaymentProviderError } from '#lib/payments/index.ts';
import { presentPayments } from '../bookings/present-payments.ts';
import type { PaymentsContext } from './webhook.ts';

// Staff's payment routes (issue 43, item 5), in the payments function beside the provider's adapter (the
// bookings function has no room for it): capture an authorisation, refund what was taken.

const amountParam = z.optional(
  z.string().check(z.maxLength(20), z.regex(/^\d+(\.\d+)?$/, 'a decimal amount such as "20.00"')),
);

export const captureSchema = z.strictObject({ amount: amountParam });

export const refundSchema = z.strictObject({
  amount: amountParam,
  method: z.optional(z.enum(['provider', 'manual'])),
});

/** A decimal amount as minor units in the tenant's currency: more than its digits, or zero, is a 400. */
function minorOf(request: ApiRequest, amount: string | undefined): number | undefined {
  if (amount === undefined) return undefined;
  const decimals = request.config.locale.decimals;
  let minor: number;
  try {
    minor = toMinor(amount, decimals);
  } catch {
    throw validationError({ amount: `at most ${decimals} decimals` });
  }
  if (minor < 1) throw validationError({ amount: 'more than 0' });
  return minor;
}

/**
 * The provider's failure as the envelope says it: unreachable or failing, 503 with Retry-After and nothing
 * recorded; a refusal, 409 with the provider's reason; never a 500 for what the provider did.
 */
function providerFailure(error: unknown): never {
  if (!(error instanceof PaymentProviderError)) throw error;
  if (error.code === 'refused' || error.code === 'not_found')
    throw new ApiError('invalid_status', {
      details: `The payment provider refused it (${error.reason ?? error.code}); nothing was recorded`,
      data: { provider: error.reason ?? error.code },
    });
  throw new ApiError('busy', {
    details: 'The payment provider is unavailable; nothing was recorded. Try again later.',
    data: { provider: error.code },
    headers: { 'retry-after': '30' },
    cause: error,
  });
}

/** The answer: the payment acted on, and the booking's money after it. */
function answer(request: ApiRequest, record: BookingRecord, paymentId: string) {
  const money = (minor: number) => formatAmount(minor, request.config.locale.decimals);
  const { booking } = record;
  return {
    body: {
      payment: presentPayments(record.attempts, money).find((one) => one.payment_id === paymentId),
      booking: {
        booking_id: booking.booking_id,
        code: booking.code,
        status_id: booking.status_id,
        total: money(booking.totals.total),
        paid_total: money(booking.paid_total),
        due: money(booking.totals.total - booking.paid_total),
      },
    },
    request: { id: booking.code, records: 1 },
  };
}

/** What a staff payment route acts with: the caller's booking context and the provider, if set up. */
async function contextOf(deps: PaymentsContext, request: ApiRequest): Promise<StaffPaymentContext> {
  assertNotPartner(request.caller, 'payments');
  return {
    db: deps.db,
    config: request.config,
    keys: [],
    caller: request.caller,
    requester: request.requester,
    now: request.now,
    provider: await deps.payments?.(),
  };
}

/** POST booking/{id}/payment/{payment_id}/capture: all of an authorisation, or `amount` of it. */
export const createCapture =
  (deps: PaymentsContext): RouteHandler =>
  async (request) => {
    const query = parseInput(captureSchema, request.input);
    const paymentId = request.params.payment_id ?? '';
    const record = await capturePayment(await contextOf(deps, request), {
      reference: request.params.booking_id ?? '',
      paymentId,
      amount: minorOf(request, query.amount),
    }).catch(providerFailure);
    return answer(request, record, paymentId);
  };

/** POST booking/{id}/payment/{payment_id}/refund: `amount` (all that is left, left out) by `method`. */
export const createRefund =
  (deps: PaymentsContext): RouteHandler =>
  async (request) => {
    const query = parseInput(refundSchema, request.input);
    const paymentId = request.params.payment_id ?? '';
    const record = await refundPayment(await contextOf(deps, request), {
      reference: request.params.booking_id ?? '',
      paymentId,
      amount: minorOf(request, query.amount),
      method: query.method,
    }).catch(providerFailure);
    return answer(request, record, paymentId);
  };
