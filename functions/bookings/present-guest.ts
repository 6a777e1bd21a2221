import type { BookingRecord } from '#lib/bookings/index.ts';
import { bookedAmounts, isInactive, startOfLines, statusName } from '#lib/bookings/index.ts';
import type { StoredConfig } from '#lib/config/index.ts';
import { describeDates } from '#lib/kernel/dates.ts';
import { invoiceUrl, moneyOf, unix } from './present.ts';
import { presentCancellation } from './present-cancellation.ts';

/**
 * The booking as its guest sees it through its token (issue 44): its lines, dates, money and payments, and
 * the details the guest entered; never staff notes, the audit trail, the customer or partner ids, nor
 * another booking.
 */
export function presentGuestBooking(
  record: BookingRecord,
  config: StoredConfig,
  apiUrl: string,
  now: number,
) {
  const { booking } = record;
  const money = moneyOf(config);
  const lines = Object.values(booking.lines);
  // A checkout the guest can still pay (issue 43), with its deadline; none once the booking is cancelled or
  // void (what is paid on it then goes back in full), though the provider keeps it open until it expires.
  const open = isInactive(booking.status_id)
    ? undefined
    : (record.attempts ?? []).find((attempt) => attempt.status === 'pending' && attempt.checkout_url);
  const last =
    lines
      .map((line) => line.last_date)
      .sort()
      .at(-1) ?? booking.start_date;
  return {
    booking_id: booking.booking_id,
    code: booking.code,
    id: booking.code,
    status_id: booking.status_id,
    status_name: statusName(config, booking.status_id),
    created_date: booking.created_date,
    start_date: unix(booking.start_date, config),
    end_date: unix(booking.end_date, config),
    date_desc: booking.start_date ? describeDates(booking.start_date, last) : '',
    customer_name: booking.form.customer_name ?? '',
    customer_email: booking.form.customer_email ?? '',
    items: Object.fromEntries(
      lines.map((line) => [
        line.line_id,
        {
          item_id: line.item_id,
          name: line.name,
          unit: line.unit,
          qty: line.qty,
          // The party as booked, with the tenant's labels: what the guest's page offers to change.
          param: Object.fromEntries(
            Object.entries(line.payload.params).map(([id, qty]) => [
              id,
              { qty, lbl: config.params[id]?.lbl ?? id },
            ]),
          ),
          start_date: unix(line.start_date, config),
          end_date: unix(line.end_date, config),
          date_desc: describeDates(line.start_date, line.last_date),
          total: money(bookedAmounts(line, config.taxes, config.locale.decimals).total),
        },
      ]),
    ),
    sub_total: money(booking.totals.sub_total),
    discount: money(booking.totals.discount),
    tax_total: money(booking.totals.tax),
    total: money(booking.totals.total),
    paid_total: money(booking.paid_total),
    // Nothing is due on a booking that was cancelled or voided, whatever it kept; what a change kept under
    // the policy is paid, not owed back.
    due: money(
      isInactive(booking.status_id)
        ? 0
        : Math.max(0, booking.totals.total + (booking.change_kept ?? 0) - booking.paid_total),
    ),
    // Money taken and given back (refunds negative), oldest first, by how: who recorded it is staff's business.
    payments: [...record.payments]
      .sort((a, b) => a.date - b.date)
      .map((payment) => ({ date: payment.date, amount: money(payment.amount), method: payment.method })),
    ...(open
      ? { payment: { amount: money(open.amount), deadline: open.deadline, url: open.checkout_url } }
      : {}),
    // A change of dates waiting for its difference (issue 44): where it goes, and what it costs.
    ...(booking.change && !isInactive(booking.status_id)
      ? {
          change: {
            start_date: booking.change.to.start_at,
            end_date: booking.change.to.end_at,
            total: money(booking.change.to.totals.total),
            deadline: booking.change.deadline,
          },
        }
      : {}),
    invoice_url: invoiceUrl(booking, apiUrl),
    // The terms it was sold under, in the words staff see them (without staff's own override).
    ...(booking.cancellation_policy
      ? {
          cancellation_policy: presentCancellation(booking.cancellation_policy, {
            config,
            now,
            start: startOfLines(lines, config.company.timezone),
            names: Object.fromEntries(lines.map((line) => [line.line_id, line.name])),
            deposit: booking.payment?.kind === 'deposit',
            staff: false,
          }),
        }
      : {}),
  };
}
