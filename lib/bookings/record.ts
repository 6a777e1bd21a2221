import { randomBytes } from 'node:crypto';
import type { StoredConfig } from '../config/index.ts';
import { localInstant, todayIn } from '../kernel/dates.ts';
import { unixSeconds } from '../kernel/time.ts';
import type { SessionLine, StoredSession } from '../sessions/index.ts';
import { accountIdOf, type BookingContext } from './booking.ts';
import type { CancellationSnapshot } from './cancellation.ts';
import type { StoredBooking } from './repository.ts';
import { cartAmounts, sumAmounts } from './totals.ts';
import { firstActiveStatus } from './unpaid.ts';

/** A new booking token, the guest's one secret (invoice and manage links): 24 random bytes, URL-safe. */
export const newBookingToken = (): string => randomBytes(24).toString('base64url');

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A new booking code: the tenant prefix and six unambiguous random characters. */
export function newBookingCode(prefix: string): string {
  const bytes = randomBytes(6);
  return `${prefix}-${[...bytes].map((byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]).join('')}`;
}

/**
 * The money of a session's lines in line order, as the cart shows it, and each line's discount, which the
 * booking keeps with the line (`discounted`).
 */
export const sessionMoney = (session: StoredSession, config: StoredConfig) => {
  const lines = Object.values(session.lines).sort((a, b) => Number(a.line_id) - Number(b.line_id));
  const amounts = cartAmounts(lines, config.taxes, config.locale.decimals);
  return {
    totals: sumAmounts(amounts),
    discounted: Object.fromEntries(lines.map((line, index) => [line.line_id, amounts[index]?.discount ?? 0])),
    amounts: Object.fromEntries(lines.map((line, index) => [line.line_id, amounts[index]])),
  };
};

/** The taxes as sold now: names and rates kept with a booking for its invoice. */
export const soldTaxes = (config: StoredConfig): NonNullable<StoredBooking['taxes']> =>
  config.taxes.map(({ tax_id, name, rate, inclusive }) => ({
    tax_id,
    name,
    rate,
    ...(inclusive ? { inclusive } : {}),
  }));

/** A booking's totals from its lines' summed money. */
export const bookingTotalsOf = (totals: ReturnType<typeof sumAmounts>): StoredBooking['totals'] => ({
  sub_total: totals.subTotal,
  discount: totals.discount,
  tax: totals.tax,
  tax_included: totals.taxIncluded,
  total: totals.total,
});

/** The first status: PAID when a payment (a gift certificate) covered it all, else the first active one. */
const initialStatus = (config: StoredConfig, options: { due: number; paid: number }): string => {
  const statuses = config.statuses.map((status) => status.status_id);
  if (options.paid > 0 && options.due <= 0 && statuses.includes('PAID')) return 'PAID';
  return firstActiveStatus(config);
};

/** What a new booking is made of: the session it books and what the create decided about it. */
export interface NewBookingParts {
  bookingId: number;
  code: string;
  customerId: number;
  /** The validated form. */
  form: Record<string, string>;
  session: StoredSession;
  /** The session's lines, caught up with what their items take now (`catchUpLines`). */
  lines: Record<string, SessionLine>;
  /** The session's holds and what the caught-up lines take beyond them. */
  holds: Record<string, number>;
  money: ReturnType<typeof sessionMoney>;
  giftcert?: { code: string; amount: number } | undefined;
  /** The client whose budgets the booking counts against while nobody has paid for it. */
  budgetClient?: string | undefined;
  /** The cancellation policies its lines are sold under (`cancellationOfLines`), kept with it. */
  cancellation?: CancellationSnapshot | undefined;
}

/** The record of a new booking of a session, at version 1, with a new token. */
export function newBookingRecord(ctx: BookingContext, parts: NewBookingParts): StoredBooking {
  const { totals, discounted, amounts } = parts.money;
  const { giftcert, holds } = parts;
  const paid = giftcert?.amount ?? 0;
  const nowSeconds = unixSeconds(ctx.now);
  const timezone = ctx.config.company.timezone;
  const lines = Object.values(parts.session.lines);
  const startDate = lines.map((line) => line.start_date).sort()[0] ?? todayIn(timezone, ctx.now);
  const endDate =
    lines
      .map((line) => line.end_date)
      .sort()
      .at(-1) ?? startDate;
  const lastDate =
    lines
      .map((line) => line.last_date)
      .sort()
      .at(-1) ?? startDate;
  return {
    booking_id: parts.bookingId,
    code: parts.code,
    token: newBookingToken(),
    status_id: initialStatus(ctx.config, { due: totals.total - paid, paid }),
    version: 1,
    created_date: nowSeconds,
    last_modified: nowSeconds,
    customer_id: parts.customerId,
    form: parts.form,
    lines: Object.fromEntries(
      Object.entries(parts.lines).map(([id, line]) => [
        id,
        // What it was sold for is kept with it: the invoice never re-prices it at later rates.
        { ...line, discounted: discounted[id] ?? 0, ...(amounts[id] ? { amounts: amounts[id] } : {}) },
      ]),
    ),
    holds,
    taxes: soldTaxes(ctx.config),
    totals: bookingTotalsOf(totals),
    paid_total: paid,
    ...(giftcert ? { giftcert } : {}),
    checked_in: 0,
    checked_out: 0,
    start_date: startDate,
    end_date: endDate,
    start_at: unixSeconds(localInstant(startDate, 0, timezone)),
    end_at: unixSeconds(localInstant(endDate, 0, timezone)),
    last_at: unixSeconds(localInstant(lastDate, 0, timezone)),
    item_ids: [...new Set(lines.map((line) => line.item_id))],
    session_id: parts.session.id,
    ...(ctx.caller.partnerId !== undefined ? { partner_id: ctx.caller.partnerId } : {}),
    // Counted until someone pays something for it: an unpaid booking, or a free one (a free tour's
    // seats are stock too); a gift certificate that paid any of it is a payment.
    ...(parts.budgetClient && paid === 0 ? { budget: { client: parts.budgetClient, holds } } : {}),
    entered_by: accountIdOf(ctx.caller),
    ...(parts.cancellation ? { cancellation_policy: parts.cancellation } : {}),
  };
}
