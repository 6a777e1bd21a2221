import type { Caller } from '#lib/access/index.ts';
import type {
  BookingRecord,
  StoredBooking,
  StoredPaymentAttempt,
  VisibleCustomer,
} from '#lib/bookings/index.ts';
import { accountIdOf, bookedAmounts, fieldsFor, startOfLines, statusName } from '#lib/bookings/index.ts';

import type { StoredConfig } from '#lib/config/index.ts';
import { manageUrlOf } from '#lib/http/public-url.ts';
import { addDays, describeDates, localInstant } from '#lib/kernel/dates.ts';
import type { StoredEvent } from '#lib/kernel/events.ts';
import { formatAmount } from '#lib/kernel/money.ts';
import { unixSeconds } from '#lib/kernel/time.ts';
import { presentCancellation } from './present-cancellation.ts';
import { presentPayments } from './present-payments.ts';

/** The customer fields of the wire, in order. */
const CUSTOMER_FIELDS = [
  'customer_name',
  'customer_email',
  'customer_phone',
  'customer_address',
  'customer_city',
  'customer_country',
  'customer_region',
  'customer_postal_zip',
] as const;

/**
 * Unix seconds of the local midnight `days` calendar days after `ymd` (before it, when negative), in the
 * tenant's time zone: a day across a change of clocks is 23 or 25 hours, not 24. 0 with no date.
 */
export const unix = (ymd: string, config: StoredConfig, days = 0): number =>
  ymd ? unixSeconds(localInstant(addDays(ymd, days), 0, config.company.timezone)) : 0;

/** Formats minor units in the tenant's currency digits (`"130.00"`). */
export const moneyOf = (config: StoredConfig) => (minor: number) =>
  formatAmount(minor, config.locale.decimals);

/** The absolute URL of a booking's invoice page for whoever holds its token, on the configured API URL. */
export function invoiceUrl(booking: StoredBooking, apiUrl: string): string {
  return `${apiUrl}/booking/${encodeURIComponent(booking.code)}/invoice?token=${encodeURIComponent(booking.token)}`;
}

/**
 * The absolute URL of the guest's page of their booking (`/manage`, issue 44), on the site the API's public
 * base URL is under (where `/book` is).
 */
export const manageUrl = (booking: StoredBooking, apiUrl: string): string =>
  manageUrlOf(apiUrl, booking.code, booking.token);

/** The wire's customer fields of a booking's form, each a string. */
export const customerOf = (form: Record<string, string>) =>
  Object.fromEntries(CUSTOMER_FIELDS.map((field) => [field, form[field] ?? '']));

/** A booking's lines, one summary line, and its dates. */
const summaryOf = (booking: StoredBooking) => {
  const lines = Object.values(booking.lines);
  const last =
    lines
      .map((line) => line.last_date)
      .sort()
      .at(-1) ?? booking.start_date;
  return {
    summary: lines.map((line) => (line.qty > 1 ? `${line.qty} × ${line.name}` : line.name)).join(', '),
    date_desc: booking.start_date ? describeDates(booking.start_date, last) : '',
  };
};

/** The `booking/create` response's `booking` (wire notes). */
export function presentCreated(
  booking: StoredBooking,
  context: {
    config: StoredConfig;
    /** The API's configured public base URL (`ApiRequest.apiUrl`). */
    apiUrl: string;
    audience: 'customer' | 'staff';
    /** Whether the caller proved it made the booking: only then the token, URLs and money. */
    proven: boolean;
    /** The payment attempt the booking awaits (issue 43). */
    attempt?: StoredPaymentAttempt;
  },
) {
  const status = {
    id: booking.code,
    booking_id: booking.booking_id,
    code: booking.code,
    status_id: booking.status_id,
    status: booking.status_id,
    status_name: statusName(context.config, booking.status_id),
  };
  if (!context.proven) return status;
  const money = moneyOf(context.config);
  const url = invoiceUrl(booking, context.apiUrl);
  return {
    ...status,
    total: money(booking.totals.total),
    paid_total: money(booking.paid_total),
    due: money(booking.totals.total - booking.paid_total),
    token: booking.token,
    // Whether an email already was a customer is not a customer's business.
    ...(context.audience === 'staff' ? { customer_id: booking.customer_id } : {}),
    invoice_url: url,
    manage_url: manageUrl(booking, context.apiUrl),
    customer_payment_url: url,
    ...(context.attempt ? paymentOf(booking, context.attempt, context.config) : {}),
  };
}

/**
 * What a booking awaiting payment adds to the create's answer (docs/payments.md): what is paid now
 * (`deposit`), by when, where (`payment_url`, also `customer_payment_url`, while the checkout is open) and
 * where the attempt stands; with a deposit, when the balance falls due.
 */
function paymentOf(booking: StoredBooking, attempt: StoredPaymentAttempt, config: StoredConfig) {
  const open = (attempt.status === 'pending' || attempt.status === 'failed') && attempt.checkout_url;
  const balanceDays = config.settings.payment?.balance_due_days_before_start;
  return {
    deposit: moneyOf(config)(attempt.amount),
    payment_status: attempt.status,
    payment_deadline: attempt.deadline,
    ...(open ? { payment_url: attempt.checkout_url, customer_payment_url: attempt.checkout_url } : {}),
    ...(attempt.kind === 'deposit' && balanceDays !== undefined
      ? { balance_due_date: unix(booking.start_date, config, -balanceDays) }
      : {}),
  };
}

/** A row of `booking/index`. */
export function presentRow(booking: StoredBooking, config: StoredConfig) {
  const money = moneyOf(config);
  return {
    booking_id: booking.booking_id,
    code: booking.code,
    status_id: booking.status_id,
    status_name: statusName(config, booking.status_id),
    created_date: booking.created_date,
    last_modified: booking.last_modified,
    total: money(booking.totals.total),
    tax_total: money(booking.totals.tax),
    paid_total: money(booking.paid_total),
    customer_id: booking.customer_id,
    partner_id: booking.partner_id ?? 0,
    customer_name: booking.form.customer_name ?? '',
    customer_email: booking.form.customer_email ?? '',
    ...summaryOf(booking),
    token: booking.token,
  };
}

/** An audit entry as `booking/{id}?events=1` lists it (and webhooks send it): its time in Unix seconds. */
export const presentEvent = <T extends StoredEvent>(event: T) => ({ ...event, at: unixSeconds(event.at) });

/** The full record of `GET booking/{id}` (design §3 and wire notes), with its audit trail on request. */
export function presentRecord(
  record: BookingRecord,
  context: { config: StoredConfig; caller: Caller; events: boolean; now?: number },
) {
  const { booking } = record;
  const { config } = context;
  const money = moneyOf(config);
  const due = booking.totals.total - booking.paid_total;
  const items = Object.fromEntries(
    Object.values(booking.lines).map((line) => [
      line.line_id,
      {
        item_id: line.item_id,
        sku: line.sku,
        name: line.name,
        qty: line.qty,
        start_date: unix(line.start_date, config),
        end_date: unix(line.end_date, config),
        status_id: booking.status_id,
        param: Object.fromEntries(Object.entries(line.payload.params).map(([id, qty]) => [id, { qty }])),
        total: money(bookedAmounts(line, config.taxes, config.locale.decimals).total),
      },
    ]),
  );
  return {
    booking_id: booking.booking_id,
    code: booking.code,
    id: booking.code,
    status_id: booking.status_id,
    status_name: statusName(config, booking.status_id),
    created_date: booking.created_date,
    last_modified: booking.last_modified,
    start_date: unix(booking.start_date, config),
    end_date: unix(booking.end_date, config),
    customer_id: booking.customer_id,
    partner_id: booking.partner_id ?? 0,
    ...customerOf(booking.form),
    form: booking.form,
    ...summaryOf(booking),
    items,
    sub_total: money(booking.totals.sub_total),
    discount: money(booking.totals.discount),
    tax_total: money(booking.totals.tax),
    tax_inc_total: money(booking.totals.tax_included),
    total: money(booking.totals.total),
    paid_total: money(booking.paid_total),
    due: money(due),
    amount_due: money(due),
    checked_in: booking.checked_in,
    checked_out: booking.checked_out,
    bookmarked: record.bookmarks.includes(accountIdOf(context.caller)) ? 1 : 0,
    notes: [...record.notes]
      .sort((a, b) => a.date.localeCompare(b.date))
      .map((note) => ({ ...note, booking_id: booking.booking_id })),
    payments: presentPayments(record.attempts, money),
    transactions: [...record.payments]
      .sort((a, b) => a.date - b.date)
      .map((payment) => ({ ...payment, amount: money(payment.amount) })),
    meta: { note: booking.form.note ?? '' },
    token: booking.token,
    // The policies it was sold under, at its dates (issue 44); a webhook's reads them as of its delivery.
    ...(booking.cancellation_policy
      ? {
          cancellation_policy: presentCancellation(booking.cancellation_policy, {
            config,
            now: context.now ?? Date.now(),
            start: startOfLines(Object.values(booking.lines), config.company.timezone),
            names: Object.fromEntries(Object.values(booking.lines).map((line) => [line.line_id, line.name])),
            deposit: booking.payment?.kind === 'deposit',
            staff: true,
          }),
        }
      : {}),
    ...(context.events
      ? {
          events: [...record.events].sort((a, b) => a.at - b.at).map(presentEvent),
        }
      : {}),
  };
}

/**
 * A customer with their bookings (wire notes): the details as entered on the booking `details_from` names
 * (empty when no booking may give them), and the email the customer's bookings are filed under.
 */
export function presentCustomer({ customer, bookings, detailsFrom }: VisibleCustomer) {
  return {
    customer_id: customer.customer_id,
    code: customer.code,
    status_id: customer.status_id,
    ...customerOf({ ...detailsFrom?.form, customer_email: customer.email }),
    details_from: detailsFrom?.code ?? '',
    created_date: customer.created_date,
    bookings: Object.fromEntries(
      bookings.map((booking) => [
        booking.code,
        { booking_id: booking.booking_id, created_date: booking.created_date, status_id: booking.status_id },
      ]),
    ),
  };
}

/**
 * The `booking/form` response's form and policy for an audience (wire notes: `booking_form_ui`); with
 * cancellation terms, the policy carries them and its body ends with their words, a paragraph of their own.
 */
export function presentForm(
  config: StoredConfig,
  audience: 'customer' | 'staff',
  cancellation?: ReturnType<typeof presentCancellation>,
) {
  const ui: Record<string, unknown> = { msg: [], errors: 0, mode: 'html', _cnf: [] };
  for (const field of fieldsFor(config, audience)) {
    ui[field.field_id] = {
      value: field.value,
      define: {
        required: field[audience].required ? 1 : 0,
        ...(field.mask ? { mask: field.mask } : {}),
        // Beyond the wire's fields: the server's length limit, so a client can check it before sending.
        max_length: field.max_length,
        layout: {
          lbl: field.lbl,
          type: field.type,
          ...(field.options ? { options: field.options } : {}),
          customer: {
            form: field.customer.form ? 1 : 0,
            required: field.customer.required ? 1 : 0,
            invoice: field.customer.invoice ? 1 : 0,
          },
          staff: {
            form: field.staff.form ? 1 : 0,
            required: field.staff.required ? 1 : 0,
            invoice: field.staff.invoice ? 1 : 0,
          },
        },
      },
    };
  }
  const policy = {
    body: cancellation
      ? [config.policy.body.trimEnd(), cancellation.text].filter(Boolean).join('\n\n')
      : config.policy.body,
    fields: {
      customer_tos_agree: {
        value: '',
        define: {
          required: config.policy.tos_required ? 1 : 0,
          layout: { lbl: 'I agree to the booking policy', type: 'checkbox' },
        },
      },
    },
    ...(cancellation ? { cancellation } : {}),
  };
  return { ui, policy };
}
