import { z } from 'zod';
import { cancellationTermsSchema } from './cancellation-schema.ts';

// The resources API 3.0 clients read (items, rates, sessions, bookings, customers, events, webhooks),
// as functions/responses.ts composes them into each route's response. Nested objects are loose: they
// may carry more than is described here.

/** An integer. */
export const int = z.number().int();
/** A decimal amount as the wire writes it ("130.00"). */
export const money = z.string().regex(/^-?\d+(\.\d+)?$/, 'a decimal amount such as "130.00"');
/** A date as YYYYMMDD, or empty. */
export const ymd = z.string().regex(/^(\d{8})?$/, 'YYYYMMDD');
/** An object keyed by id (the wire's collections). */
export const keyed = <T extends z.ZodType>(value: T) => z.record(z.string(), value);
/** A 0/1 flag. */
export const flag = z.union([z.literal(0), z.literal(1)]);
/** An item, unrated (reference §2.2 and the wire notes' extras). */
export const itemSchema = z.looseObject({
  item_id: int,
  sku: z.string(),
  url: z.string(),
  unit: z.enum(['D', 'N', 'H']),
  lock: int,
  visibility: z.enum(['*', 'S', 'P']),
  name: z.string(),
  pos: int,
  summary: z.string(),
  details: z.string(),
  unlimited: flag,
  video: z.object({ id: z.string(), start: int }),
  image: keyed(
    z.looseObject({
      src: z.string(),
      'src@2x': z.string(),
      title: z.union([z.string(), z.literal(false)]),
      /** The size of `src` in pixels, when the tenant gave it: a page reserves the picture's space. */
      width: int.optional(),
      height: int.optional(),
    }),
  ),
  category_id: int,
  rated: flag,
  stock: int,
  /** A JSON string: `{"param": {<id>: {"MIN": "0", "MAX": "99"}}, "fixed": {"start_time": ""}}` (an hourly item adds `end_time`). */
  rules: z.string(),
  param: keyed(
    z.looseObject({
      lbl: z.string(),
      def: int,
      req: flag,
      MIN: int,
      MAX: int,
      hide: z.union([flag, z.null()]),
    }),
  ).optional(),
});

/** The `rate` of a rated item. */
export const rateSchema = z.looseObject({
  status: z.enum(['AVAILABLE', 'SOLDOUT', 'UNAVAILABLE', 'RULE']),
  available: int,
  slip: z.string().optional(),
  summary: z.looseObject({ title: z.string(), price: z.looseObject({ total: z.string() }) }),
  sub_total: money,
  start_date: ymd,
  end_date: ymd,
  dates: keyed(
    z.looseObject({
      status: z.string(),
      price: keyed(money),
      dow: z.string(),
      stock: z.object({ T: int, B: int, A: int }),
    }),
  ),
});

/** A field of `booking/form` (wire notes): its value and how to show and check it. */
export const formFieldSchema = z.looseObject({
  value: z.string(),
  define: z.looseObject({
    required: flag,
    mask: z.string().optional(),
    max_length: int.optional(),
    layout: z.looseObject({
      lbl: z.string(),
      type: z.enum(['text', 'textarea', 'select', 'checkbox', 'radio', 'p']),
      options: z.record(z.string(), z.string()).optional(),
    }),
  }),
});

/** An item rated for dates: its rate, and its parameters with price and quantity. */
export const ratedItemSchema = itemSchema.extend({
  rated: z.literal(1),
  rate: rateSchema,
  param: keyed(z.looseObject({ price: money, lbl: z.string(), qty: int })),
  days: int,
  local_start_date: z.string(),
  local_end_date: z.string(),
});

/** A calendar: what is left by YYYYMMDD. */
export const calendarSchema = keyed(int);

/** A line of the cart (package parts are dotted lines). */
export const sessionLineSchema = z.looseObject({
  sku: z.string(),
  item_id: int,
  name: z.string(),
  date: z.looseObject({ start_date: ymd, end_date: ymd }).optional(),
  slip: z.string().optional(),
  available: int.optional(),
});

/** The cart (`booking.session`). */
export const sessionSchema = z.looseObject({
  id: z.string(),
  age: int,
  expires: int,
  item: keyed(sessionLineSchema),
  sub_total: money,
  total: money,
});

/** The booking `booking/create` answers. */
export const createdSchema = z.looseObject({
  id: z.string(),
  booking_id: int,
  code: z.string(),
  status_id: z.string(),
  status: z.string(),
  status_name: z.string(),
  total: money.optional(),
  token: z.string().optional(),
  invoice_url: z.string().optional(),
  manage_url: z
    .string()
    .optional()
    .describe("The guest's page of the booking (`/manage`, issue 44), with its token; beside `invoice_url`."),
  customer_id: int.optional(),
  deposit: money
    .optional()
    .describe('What is paid now to keep the booking (a deposit, or the whole amount).'),
  payment_url: z.string().optional().describe("The provider's hosted checkout, while it is open."),
  payment_status: z
    .enum(['opening', 'pending', 'failed', 'authorised', 'captured', 'cancelled', 'lapsed'])
    .optional(),
  payment_deadline: int.optional().describe('Unix seconds: unpaid by then, the booking lapses.'),
  balance_due_date: int.optional().describe("Unix seconds: when a deposit's balance falls due."),
});

/** A payment of a booking as staff see it (also in `booking/{id}`'s `payments`). */
export const paymentSchema = z.looseObject({
  id: z.string(),
  payment_id: z.string(),
  provider: z.string().describe('`stripe`, or `pos` for a payment at the point of sale (`set_paid`).'),
  kind: z.enum(['deposit', 'full', 'balance', 'pos', 'change']),
  amount: money.describe('What was asked.'),
  currency: z.string(),
  status: z.enum(['opening', 'pending', 'failed', 'authorised', 'captured', 'cancelled', 'lapsed']),
  captured: money,
  refunded: money,
  created: int,
  updated: int,
  refunds: z.array(
    z.strictObject({
      refund_id: z.string(),
      amount: money,
      method: z.enum(['provider', 'manual']),
      created: int,
    }),
  ),
});

/** A booking record (`booking/{id}`). */
export const recordSchema = z.looseObject({
  booking_id: int,
  code: z.string(),
  id: z.string(),
  status_id: z.string(),
  status_name: z.string(),
  created_date: int,
  start_date: int,
  end_date: int,
  customer_id: int,
  partner_id: int,
  total: money,
  paid_total: money,
  payments: z
    .array(paymentSchema)
    .describe('Its payments at a provider or at the point of sale (issue 43), oldest first.'),
  items: keyed(z.looseObject({ item_id: int, qty: int })),
  notes: z.array(z.looseObject({ note_id: z.string(), body: z.string() })),
  cancellation_policy: cancellationTermsSchema
    .optional()
    .describe('The cancellation policies it was sold under (issue 44), at its dates; absent when none.'),
});

/** A row of `booking/index`. */
export const rowSchema = z.looseObject({
  booking_id: int,
  code: z.string(),
  status_id: z.string(),
  status_name: z.string(),
  created_date: int,
  total: money,
  customer_id: int,
  partner_id: int,
  token: z.string(),
});

/** The body of the booking lists, keyed `booking/index` as clients read it. */
export const listBody = { 'booking/index': keyed(rowSchema) };

/**
 * A customer: the details as entered on the booking `details_from` names (staff: the newest one entered
 * with a credential; a partner: its own newest), empty when none; never what a public create typed.
 */
export const customerSchema = z.looseObject({
  customer_id: int,
  code: z.string(),
  customer_name: z.string(),
  customer_email: z.string(),
  details_from: z.string(),
  bookings: keyed(z.looseObject({ created_date: int })),
});

/** An event of the audit trail. */
export const eventSchema = z.strictObject({
  event_id: int,
  name: z.string(),
  type: z.enum(['rate', 'discount', 'closed']),
  start_date: ymd,
  end_date: ymd,
  status: z.enum(['A', 'E']),
  enabled: flag,
  repeat: z.enum(['none', 'weekly']),
  dow: z.array(z.string()),
  apply_to: z.object({ item_id: z.array(int), category_id: z.array(int) }),
});

/** A note of a booking. */
export const noteSchema = z.strictObject({
  note_id: z.string(),
  account_id: int,
  date: z.string(),
  body: z.string(),
  private: int,
  booking_id: z.string(),
});

/** The body of every answer that shows one booking. */
export const bookingRecordBody = { booking: recordSchema };

/** A webhook endpoint as staff see it. */
export const webhookSchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  format: z.enum(['standard', 'checkfront']),
  enabled: flag,
  state: z.enum(['enabled', 'disabled']),
  disabled_reason: z.enum(['', 'tenant_file', 'gone', 'failing']),
  disabled_at: int,
  last_success_at: int,
  last_failure_at: int,
  consecutive_failures: int,
  in_file: flag,
});

/** One delivery of an event to an endpoint. */
export const deliverySchema = z.strictObject({
  event_id: z.string(),
  event_type: z.string(),
  event_at: int,
  booking_id: int,
  status: z.enum(['pending', 'delivered', 'failed', 'skipped']),
  failures: int,
  next_at: int,
  attempts: z.array(
    z.strictObject({
      at: int,
      status: int,
      duration_ms: int,
      outcome: z.enum(['success', 'failure', 'gone', 'refused']),
      error: z.string(),
      body: z.string().max(1024),
    }),
  ),
});

/** A channel date this service had already sold: recorded and emitted, taken when it frees up. */
export const channelConflictSchema = z.strictObject({
  /** The counter slot: a date `YYYYMMDD`, or an hourly item's UTC hour `YYYYMMDDTHHZ`. */
  slot: z.string(),
  units: int,
  /** The codes of the bookings that held the slot when the conflict was found. */
  bookings: z.array(z.string()),
  opened_at: int,
  event_id: z.string(),
});

/** An imported channel feed and its sync state (times are Unix seconds, 0 for never). */
export const channelSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  item_id: int,
  /**
   * The feed's address as it may be shown: scheme, host and port, every path segment masked (`***`) but
   * the file name's extension. Channels put the feed's secret in the query, the path or the file name.
   */
  url: z.string(),
  units: int,
  enabled: flag,
  state: z.enum(['never_synced', 'ok', 'failing', 'disabled']),
  last_fetch_at: int,
  last_success_at: int,
  failing_since: int,
  last_error: z.string(),
  /** Slots the feed listed at the last successful read, and slots the channel blocks now, from today. */
  dates_listed: int,
  dates_blocked: int,
  conflicts: z.array(channelConflictSchema),
});

/**
 * What one sync of a channel did. `partial`: the request's deadline came while applying; `pending` slots
 * are left, and the next round (or sync) applies them.
 */
export const channelSyncSchema = z.strictObject({
  outcome: z.enum(['synced', 'unchanged', 'failed', 'waiting_empty', 'partial']),
  listed: int,
  taken: int,
  released: int,
  pending: int,
  conflicts_opened: int,
  /** Of those, conflicts closed lately for the same bookings and opened again without an event. */
  conflicts_reopened: int,
  conflicts_closed: int,
  blocked: int,
  conflicts: int,
  error: z.string(),
  duration_ms: int,
});
