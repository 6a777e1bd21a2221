import * as z from 'zod/mini';
import {
  type ChangeOutcome,
  type ChangeRequest,
  changeForGuest,
  findBooking,
  type GuestChangeQuote,
  quoteGuestChange,
} from '#lib/bookings/index.ts';
import { readDateParam } from '#lib/http/date-param.ts';
import { ApiError, validationError } from '#lib/http/errors.ts';
import type { ApiRequest, RouteHandler } from '#lib/http/group-handler.ts';
import { manageUrlOf } from '#lib/http/public-url.ts';
import { booleanParam, parseInput } from '#lib/http/validate.ts';
import { describeDates, todayIn } from '#lib/kernel/dates.ts';
import { formatAmount } from '#lib/kernel/money.ts';
import { PaymentProviderError } from '#lib/payments/index.ts';
import { guestContextOf, opened, token } from './guest.ts';
import type { PaymentsContext } from './webhook.ts';

// The guest's change of their own booking (issue 44, item 4): new dates and/or party for the same items,
// first quoted (what it costs or gives back), then made holding to that quote. Beside the cancel: a lower
// price's refund and a higher price's checkout are provider calls.

const date = z.optional(z.string().check(z.maxLength(20)));
const changeFields = {
  token,
  start_date: date,
  end_date: date,
  param: z.optional(z.record(z.string(), z.string().check(z.maxLength(4)))),
  override: z.optional(booleanParam),
};

export const changeQuoteQuery = z.strictObject(changeFields);
export const changeConfirmSchema = z.strictObject({
  ...changeFields,
  quote: z.string().check(z.minLength(1), z.maxLength(64)),
});

/** The change asked for, validated: every problem named by the parameter as sent. */
function changeRequestOf(request: ApiRequest, input: z.infer<typeof changeQuoteQuery>): ChangeRequest {
  const problems: Record<string, string> = {};
  const today = todayIn(request.config.company.timezone, request.now);
  const read = (field: 'start_date' | 'end_date') => {
    const { date, problem } = readDateParam(input[field], today);
    if (problem) problems[field] = problem;
    return date;
  };
  const start = read('start_date');
  const end = read('end_date');
  if (end && !start && !problems.start_date) problems.start_date = 'required with end_date';
  if (start && end && end < start) problems.end_date = 'is before start_date';
  const params: Record<string, number> = {};
  for (const [id, value] of Object.entries(input.param ?? {})) {
    if (!(id in request.config.params)) problems[`param[${id}]`] = 'not a parameter of this business';
    else if (!/^\d{1,3}$/.test(value)) problems[`param[${id}]`] = 'a whole number from 0 to 999';
    else params[id] = Number(value);
  }
  if (!start && !Object.keys(params).length && !Object.keys(problems).length)
    problems.start_date = 'new dates (start_date, and end_date to change the length) or a party (param[...])';
  if (Object.keys(problems).length) throw validationError(problems);
  return { start, end, params };
}

/** A quote as the guest reads it: dates as the booking shows them, money as money, and a sentence. */
function presentChange(request: ApiRequest, quote: GuestChangeQuote) {
  const money = (minor: number) => formatAmount(minor, request.config.locale.decimals);
  const { currency } = request.config.locale;
  const { planned } = quote;
  const last = Object.values(planned.lines)
    .map((line) => line.last_date)
    .sort()
    .at(-1) as string;
  const paidMore =
    quote.refund > 0 || quote.kept > 0
      ? ` You get back ${money(quote.refund)} ${currency} of what you paid${quote.kept > 0 ? ` (${money(quote.kept)} ${currency} is kept under the cancellation policy)` : ''}.`
      : '';
  const text =
    quote.mode === 'pay'
      ? `The new dates cost ${money(quote.charge)} ${currency} more: the change is made once that is paid.`
      : quote.difference > 0
        ? `The new dates cost ${money(quote.difference)} ${currency} more, due as the rest of the booking.`
        : quote.difference < 0
          ? `The new dates cost ${money(-quote.difference)} ${currency} less.${paidMore}`
          : 'The new dates cost the same.';
  return {
    quote: quote.quote,
    mode: quote.mode,
    to: {
      start_date: planned.start_at,
      end_date: planned.end_at,
      date_desc: describeDates(planned.start_date, last),
      total: money(planned.totals.total),
      items: Object.fromEntries(
        Object.values(planned.lines).map((line) => [
          line.line_id,
          {
            item_id: line.item_id,
            name: line.name,
            date_desc: describeDates(line.start_date, line.last_date),
            params: line.payload.params,
            total: money(line.amounts?.total ?? 0),
          },
        ]),
      ),
    },
    from_total: money(quote.from_total),
    difference: money(quote.difference),
    refund: money(quote.refund),
    kept: money(quote.kept),
    charge: money(quote.charge),
    currency,
    text,
  };
}

/** GET booking/{id}/manage/change: what the change asked for would cost or give back now (the quote). */
export const createChangeQuote =
  (deps: PaymentsContext): RouteHandler =>
  async (request) => {
    const query = parseInput(changeQuoteQuery, request.input);
    const change = changeRequestOf(request, query);
    const { record, actor } = await opened(deps, request, query);
    const context = {
      ...guestContextOf(deps, request),
      caller: request.caller,
      provider: await deps.payments?.(),
    };
    const quote = await quoteGuestChange(context, record, change, actor);
    return {
      body: { change: presentChange(request, quote) },
      request: { id: record.booking.code, records: 1 },
    };
  };

/**
 * POST booking/{id}/manage/change: makes the change, holding to the quote the guest saw. One that costs more
 * on a booking paid online waits for the difference (`payment.url`); sent again, it answers the same.
 */
export const createChangeConfirm =
  (deps: PaymentsContext): RouteHandler =>
  async (request) => {
    const input = parseInput(changeConfirmSchema, request.input);
    const change = changeRequestOf(request, input);
    const { record, actor } = await opened(deps, request, input);
    const { code, token: key } = record.booking;
    const context = {
      returnUrl: manageUrlOf(request.apiUrl, code, key),
      ...guestContextOf(deps, request),
      caller: request.caller,
      provider: await deps.payments?.(),
    };
    const done: ChangeOutcome = await changeForGuest(context, record, change, input.quote, actor).catch(
      (error: unknown) => {
        if (!(error instanceof PaymentProviderError)) throw error;
        throw new ApiError('busy', {
          details:
            'Your booking is changed, but the refund could not be sent to the payment provider yet: send this again in a minute',
          data: { provider: error.code },
          headers: { 'retry-after': '30' },
          cause: error,
        });
      },
    );
    const after = await findBooking(deps.db, String(record.booking.booking_id), undefined);
    const money = (minor: number) => formatAmount(minor, request.config.locale.decimals);
    const made = done.change;
    return {
      body: {
        change: {
          quote: made.quote,
          made: !done.pending,
          difference: money(made.difference),
          refund: money(made.refund),
          kept: money(made.kept),
          charge: money(made.charge),
          through_provider: money(made.through_provider),
          owed: money(made.owed),
          currency: request.config.locale.currency,
          ...(made.override ? { override: true } : {}),
          ...(done.pending
            ? {
                payment: {
                  amount: money(made.charge),
                  deadline: done.pending.deadline,
                  ...(done.pending.checkout_url ? { url: done.pending.checkout_url } : {}),
                },
              }
            : {}),
        },
        booking: {
          code: after.booking.code,
          status_id: after.booking.status_id,
          start_date: after.booking.start_at,
          end_date: after.booking.end_at,
          total: money(after.booking.totals.total),
          paid_total: money(after.booking.paid_total),
        },
      },
      request: { id: record.booking.code, records: 1 },
    };
  };
