import { z } from 'zod';
import { cancellationTermsSchema } from './cancellation-schema.ts';
import {
  calendarSchema,
  channelSchema,
  createdSchema,
  customerSchema,
  deliverySchema,
  eventSchema,
  formFieldSchema,
  int,
  itemSchema,
  keyed,
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
export const envelope = (body: Record<string, z.ZodType>) => z.strictObject({ ...envelopeShape, ...body });

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
  CancellationTerms: cancellationTermsSchema,
  BookingRow: rowSchema,
  Customer: customerSchema,
  RateEvent: eventSchema,
  Note: noteSchema,
  Webhook: webhookSchema,
  Channel: channelSchema,
  WebhookDelivery: deliverySchema,
};

/**
 * `booking/form`'s policy: its text and its own fields (the terms checkbox); with a cancellation policy
 * (issue 44), its terms, whose words also end `body`.
 */
export const policySchema = z.looseObject({
  body: z.string(),
  fields: keyed(formFieldSchema),
  cancellation: cancellationTermsSchema.optional(),
});
