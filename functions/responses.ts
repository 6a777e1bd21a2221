import { z } from 'zod';
import type { RouteName } from '#lib/http/routes.ts';
import {
  bookingRecordBody,
  calendarSchema,
  channelSchema,
  channelSyncSchema,
  createdSchema,
  customerSchema,
  deliverySchema,
  eventSchema,
  flag,
  formFieldSchema,
  int,
  itemSchema,
  keyed,
  listBody,
  noteSchema,
  ratedItemSchema,
  rateSchema,
  recordSchema,
  rowSchema,
  sessionLineSchema,
  sessionSchema,
  webhookSchema,
} from './resource-schemas.ts';

// One response schema per route of the route table: what API 3.0 clients read. Nested objects are
// loose (they may carry more than is described here), the envelope and each body are exact. The tests
// validate every response they receive against these, so the description cannot drift from the code.

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
  Channel: channelSchema,
  WebhookDelivery: deliverySchema,
};

/** `booking/form`'s policy: its text and its own fields (the terms checkbox). */
const policySchema = z.looseObject({ body: z.string(), fields: keyed(formFieldSchema) });

/** The routes that answer something else than JSON (the reference page and its files, the calendar feeds). */
const RAW_ROUTES = ['docs', 'docs.asset', 'item.ical', 'booking.ical'] as const;
export type RawRouteName = (typeof RAW_ROUTES)[number];

export const isRawRoute = (name: RouteName): name is RawRouteName =>
  (RAW_ROUTES as readonly RouteName[]).includes(name);

/** The success response of every route of the table that answers JSON, by route name. */
export const RESPONSES: Record<Exclude<RouteName, RawRouteName>, z.ZodType> = {
  'item.list': envelope({ items: keyed(z.union([ratedItemSchema, itemSchema])) }),
  'item.get': envelope({ item: z.union([ratedItemSchema, itemSchema]) }),
  'item.cal': envelope({ items: keyed(calendarSchema) }),
  'item.itemCal': envelope({ item: z.object({ item_id: int, cal: calendarSchema }) }),
  'session.write': envelope({ booking: z.object({ session: sessionSchema }) }),
  'session.clear': envelope({ booking: z.object({ session: sessionSchema }) }),
  'session.end': envelope({ booking: z.object({ session: sessionSchema }) }),
  'booking.form': envelope({
    booking_form_ui: z
      .object({
        msg: z.array(z.unknown()),
        errors: int,
        mode: z.string(),
        _cnf: z.array(z.unknown()),
        booking_policy: policySchema,
      })
      .catchall(formFieldSchema),
    booking_policy: policySchema,
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
  'channel.list': envelope({ channels: keyed(channelSchema) }),
  'channel.sync': envelope({ channel: channelSchema, sync: channelSyncSchema }),
  // The OpenAPI document itself (no envelope).
  openapi: z.looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  }),
  'event.list': envelope({ events: keyed(eventSchema) }),
  'event.get': envelope({ event: eventSchema }),
};
