import type { BookingRecord } from '#lib/bookings/index.ts';
import { bookedAmounts, sumAmounts } from '#lib/bookings/index.ts';
import type { StoredConfig } from '#lib/config/index.ts';
import { describeDates } from '#lib/kernel/dates.ts';
import { formatDisplay } from '#lib/kernel/money.ts';
import { escapeHtml } from '#lib/kernel/text.ts';
import { customerOf, manageUrl, moneyOf } from './present.ts';

/**
 * The invoice: structured lines, taxes, totals and payments, and an HTML page with every value escaped that
 * links to the guest's page of the booking.
 */
export function presentInvoice(record: BookingRecord, config: StoredConfig, apiUrl: string) {
  const { booking } = record;
  const money = moneyOf(config);
  const currency = { symbol: config.locale.currency_symbol, decimals: config.locale.decimals };
  const lines = Object.values(booking.lines).map((line) => {
    const amounts = bookedAmounts(line, config.taxes, config.locale.decimals);
    return {
      line_id: line.line_id,
      name: line.name,
      sku: line.sku,
      qty: line.qty,
      dates: describeDates(line.start_date, line.last_date),
      sub_total: money(amounts.subTotal),
      discount: money(amounts.discount),
      total: money(amounts.subTotal - amounts.discount),
      amounts,
    };
  });
  const totals = sumAmounts(lines.map((line) => line.amounts));
  // The taxes as they were when it was sold: a rate changed since does not change this invoice.
  const taxes = (booking.taxes ?? config.taxes)
    .filter((tax) => totals.taxes[tax.tax_id] !== undefined)
    .map((tax) => ({
      tax_id: tax.tax_id,
      name: tax.name,
      rate: tax.rate,
      inclusive: tax.inclusive ? 1 : 0,
      amount: money(totals.taxes[tax.tax_id] ?? 0),
    }));
  const payments = [...record.payments].sort((a, b) => a.date - b.date);
  const due = booking.totals.total - booking.paid_total;
  const refunded = (record.attempts ?? []).reduce((sum, attempt) => sum + attempt.refunded, 0);
  const row = (cells: unknown[]) =>
    `<tr>${cells.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`;
  const html = [
    '<!doctype html><html><head><meta charset="utf-8">',
    `<title>Invoice ${escapeHtml(booking.code)}</title></head><body>`,
    `<h1>${escapeHtml(config.company.name)}</h1>`,
    `<p>${escapeHtml(config.company.address)}, ${escapeHtml(config.company.city)} ${escapeHtml(config.company.postal_zip)}</p>`,
    `<h2>Invoice ${escapeHtml(booking.code)}</h2>`,
    `<p>${escapeHtml(booking.form.customer_name ?? '')}<br>${escapeHtml(booking.form.customer_email ?? '')}</p>`,
    '<table><thead><tr><th>Item</th><th>Dates</th><th>Qty</th><th>Amount</th></tr></thead><tbody>',
    ...lines.map((line) =>
      row([
        line.name,
        line.dates,
        line.qty,
        formatDisplay(line.amounts.subTotal - line.amounts.discount, currency),
      ]),
    ),
    '</tbody></table><table>',
    row(['Sub-total', formatDisplay(totals.subTotal, currency)]),
    ...(totals.discount ? [row(['Discount', formatDisplay(-totals.discount, currency)])] : []),
    ...taxes.map((tax) =>
      row([tax.inclusive ? `${tax.name} (included)` : tax.name, `${currency.symbol}${tax.amount}`]),
    ),
    row(['Total', formatDisplay(booking.totals.total, currency)]),
    ...payments.map((payment) => row([`Paid (${payment.method})`, formatDisplay(payment.amount, currency)])),
    ...(refunded ? [row(['Refunded', formatDisplay(refunded, currency)])] : []),
    row(['Due', formatDisplay(due, currency)]),
    '</table>',
    `<p><a href="${escapeHtml(manageUrl(booking, apiUrl))}">Manage your booking</a></p>`,
    '</body></html>',
  ].join('');
  return {
    booking_id: booking.booking_id,
    code: booking.code,
    status_id: booking.status_id,
    created_date: booking.created_date,
    partner_id: booking.partner_id ?? 0,
    customer: customerOf(booking.form),
    lines: lines.map(({ amounts: _amounts, ...line }) => line),
    taxes,
    sub_total: money(booking.totals.sub_total),
    discount: money(booking.totals.discount),
    tax_total: money(booking.totals.tax),
    tax_inc_total: money(booking.totals.tax_included),
    total: money(booking.totals.total),
    payments: payments.map((payment) => ({ ...payment, amount: money(payment.amount) })),
    paid_total: money(booking.paid_total),
    // Taken in all, so that paid − refunded is `paid_total` and total − `paid_total` is due.
    paid: money(booking.paid_total + refunded),
    refunded: money(refunded),
    due: money(due),
    html,
  };
}
