import { z } from 'zod';

// One response schema per route of the route table: what API 3.0 clients read. Nested objects are
// loose (they may carry more than is described here), the envelope and each body are exact. The tests
// validate every response they receive against these, so the description cannot drift from the code.

const int = z.number().int();
const money = z.string().regex(/^-?\d+(\.\d+)?$/, 'a decimal amount such as "130.00"');
const ymd = z.string().regex(/^(\d{8})?$/, 'YYYYMMDD');
const keyed = <T extends z.ZodType>(value: T) => z.record(z.string(), value);
const flag = z.union([z.literal(0), z.literal(1)]);

const errorSchema = z.object({
  id: z.string(),
  title: z.string(),
  details: z.string(),
  data: z.record(z.string(), z.unknown()),
});

const requestSchema = z.looseObject({
  status: z.enum(['OK', 'ERROR']),
  resource: z.string(),
  id: z.string(),
  method: z.string(),
  records: int,
  limit: int,
  page: int,
  pages: int,
  time: z.number(),
  total_records: int.optional(),
  ignored: z.array(z.string()).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  error: errorSchema.optional(),
});

const envelopeShape = {
  version: z.literal('3.0'),
  account_id: int,
  host_id: z.string(),
  name: z.string(),
  locale: z.object({ id: z.string(), lang: z.string(), currency: z.string() }),
  request: requestSchema,
  query: z.union([z.literal(false), z.record(z.string(), z.unknown())]),
};

/** The envelope with a response's own keys beside it. */
const envelope = (body: Record<string, z.ZodType>) => z.strictObject({ ...envelopeShape, ...body });

/** Every application error: the envelope with `request.status` ERROR and `request.error`. */
export const errorEnvelopeSchema = z.strictObject({
  ...envelopeShape,
  request: requestSchema.extend({ status: z.literal('ERROR'), error: errorSchema }),
});

/** The only body without the envelope: a refused credential (401). */
export const authErrorSchema = z.strictObject({ error: z.string(), error_description: z.string() });

const itemSchema = z.looseObject({
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
    z.looseObject({ src: z.string(), 'src@2x': z.string(), title: z.union([z.string(), z.literal(false)]) }),
  ),
  category_id: int,
  rated: flag,
  stock: int,
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

const rateSchema = z.looseObject({
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
const formFieldSchema = z.looseObject({
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

const ratedItemSchema = itemSchema.extend({
  rated: z.literal(1),
  rate: rateSchema,
  param: keyed(z.looseObject({ price: money, lbl: z.string(), qty: int })),
  days: int,
  local_start_date: z.string(),
  local_end_date: z.string(),
});

const calendarSchema = keyed(int);

const sessionLineSchema = z.looseObject({
  sku: z.string(),
  item_id: int,
  name: z.string(),
  date: z.looseObject({ start_date: ymd, end_date: ymd }).optional(),
  slip: z.string().optional(),
  available: int.optional(),
});

const sessionSchema = z.looseObject({
  id: z.string(),
  age: int,
  expires: int,
  item: keyed(sessionLineSchema),
  sub_total: money,
  total: money,
});

const createdSchema = z.looseObject({
  id: z.string(),
  booking_id: int,
  code: z.string(),
  status_id: z.string(),
  status: z.string(),
  status_name: z.string(),
  total: money.optional(),
  token: z.string().optional(),
  invoice_url: z.string().optional(),
  customer_id: int.optional(),
});

const recordSchema = z.looseObject({
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
  items: keyed(z.looseObject({ item_id: int, qty: int })),
  notes: z.array(z.looseObject({ note_id: z.string(), body: z.string() })),
});

const rowSchema = z.looseObject({
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

const listBody = { 'booking/index': keyed(rowSchema) };

const customerSchema = z.looseObject({
  customer_id: int,
  code: z.string(),
  customer_name: z.string(),
  customer_email: z.string(),
  bookings: keyed(z.looseObject({ created_date: int })),
});

const eventSchema = z.strictObject({
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

const noteSchema = z.strictObject({
  note_id: z.string(),
  account_id: int,
  date: z.string(),
  body: z.string(),
  private: int,
  booking_id: z.string(),
});

const bookingRecordBody = { booking: recordSchema };

const webhookSchema = z.strictObject({
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

const deliverySchema = z.strictObject({
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

/** The parts many responses share, by the name the OpenAPI document gives them. */
export const SHARED_SCHEMAS: Record<string, z.ZodType> = {
  Request: requestSchema,
  Item: itemSchema,
  Rate: rateSchema,
  RatedItem: ratedItemSchema,
  Calendar: calendarSchema,
  SessionLine: sessionLineSchema,
  Session: sessionSchema,
  CreatedBooking: createdSchema,
  BookingRecord: recordSchema,
  BookingRow: rowSchema,
  Customer: customerSchema,
  RateEvent: eventSchema,
  Note: noteSchema,
  Webhook: webhookSchema,
  WebhookDelivery: deliverySchema,
};

/** The success response of every route of the table that answers JSON, by route name. */
export const RESPONSES: Record<string, z.ZodType> = {
  'item.list': envelope({ items: keyed(z.union([ratedItemSchema, itemSchema])) }),
  'item.get': envelope({ item: z.union([ratedItemSchema, itemSchema]) }),
  'item.cal': envelope({ items: keyed(calendarSchema) }),
  'item.itemCal': envelope({ item: z.object({ item_id: int, cal: calendarSchema }) }),
  'session.write': envelope({ booking: z.object({ session: sessionSchema }) }),
  'session.clear': envelope({ booking: z.object({ session: sessionSchema }) }),
  'session.end': envelope({ booking: z.object({ session: sessionSchema }) }),
  'booking.form': envelope({
    booking_form_ui: z
      .object({ msg: z.array(z.unknown()), errors: int, mode: z.string(), _cnf: z.array(z.unknown()) })
      .catchall(formFieldSchema),
    booking_policy: z.looseObject({ body: z.string(), fields: keyed(formFieldSchema) }),
  }),
  'booking.create': envelope({ booking: createdSchema }),
  'booking.list': envelope(listBody),
  'booking.index': envelope(listBody),
  'booking.notes': envelope({ notes: z.array(noteSchema) }),
  'booking.get': envelope(bookingRecordBody),
  'booking.invoice': envelope({
    booking: z.object({
      invoice: z.looseObject({ booking_id: int, code: z.string(), partner_id: int, html: z.string() }),
    }),
  }),
  'booking.checkin': envelope(bookingRecordBody),
  'booking.checkout': envelope(bookingRecordBody),
  'booking.update': envelope(bookingRecordBody),
  'booking.bookmark': envelope(bookingRecordBody),
  'booking.note': envelope(bookingRecordBody),
  'customer.find': envelope({ customers: keyed(customerSchema) }),
  'customer.get': envelope({ customer: customerSchema }),
  company: envelope({
    company: z.looseObject({
      name: z.string(),
      currency_id: z.string(),
      timezone: z.string(),
      currency: z.object({ symbol: z.string(), decimals: int }),
    }),
  }),
  category: envelope({
    category: keyed(z.looseObject({ category_id: int, name: z.string(), pos: int, qty: int })),
  }),
  account: envelope({
    account: z.array(
      z.looseObject({
        account_id: int,
        login_id: z.string(),
        enabled: flag,
        partner: flag,
        date_created: int,
      }),
    ),
  }),
  ping: envelope({
    pong: z.strictObject({ remote_addr: z.string(), time: int, timezone: z.string(), provider: z.string() }),
  }),
  help: envelope({
    help: z.strictObject({
      resources: z.array(z.string()),
      documentation: z.string().url(),
      openapi: z.string().url(),
    }),
  }),
  'webhook.list': envelope({ webhooks: keyed(webhookSchema) }),
  'webhook.deliveries': envelope({ deliveries: z.array(deliverySchema) }),
  'webhook.replay': envelope({
    webhook: webhookSchema,
    replay: z.strictObject({ since: int, events: int, truncated: flag, next_since: int.optional() }),
  }),
  'webhook.enable': envelope({ webhook: webhookSchema }),
  // The OpenAPI document itself (no envelope).
  openapi: z.looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  }),
  'event.list': envelope({ events: keyed(eventSchema) }),
  'event.get': envelope({ event: eventSchema }),
};
