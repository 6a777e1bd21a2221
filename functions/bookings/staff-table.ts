import { z } from 'zod';
import type { RouteDeclaration } from '#lib/http/group-handler.ts';
import { noParameters } from '#lib/http/validate.ts';
import {
  customerSchema,
  deliverySchema,
  flag,
  int,
  keyed,
  noteSchema,
  webhookSchema,
} from '../resource-schemas.ts';
import { envelope } from '../responses.ts';
import { describeRoute } from '../route-docs.ts';
import { createFindCustomer, createGetCustomer, customerQuery } from './customers.ts';
import { createListNotes, notesSchema } from './notes.ts';
import type { BookingDeps as BookingsContext } from './routes.ts';
import {
  createEnable,
  createListDeliveries,
  createListWebhooks,
  createReplay,
  pagingSchema,
  replaySchema,
} from './webhooks.ts';

// The bookings group's staff routes beside the bookings' own: customers, notes across bookings and the
// webhook endpoints. Each states its row, its implementation and its documentation, as in table.ts.

export const customerFindRoute = {
  name: 'customer.find',
  group: 'bookings',
  methods: ['GET'],
  path: 'customer',
  access: 'staff',
  resource: 'customer',
  id: '',
  handler: createFindCustomer,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(customerFindRoute, {
  summary: 'Find a customer by email, with bookings',
  request: customerQuery,
  response: envelope({ customers: keyed(customerSchema) }),
});

export const customerGetRoute = {
  name: 'customer.get',
  group: 'bookings',
  methods: ['GET'],
  path: 'customer/{customer_id}',
  access: 'staff',
  resource: 'customer',
  id: '',
  handler: createGetCustomer,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(customerGetRoute, {
  summary: 'One customer, with bookings',
  request: noParameters,
  response: envelope({ customer: customerSchema }),
  needs: ['customer'],
});

export const bookingNotesRoute = {
  name: 'booking.notes',
  group: 'bookings',
  methods: ['GET'],
  path: 'booking/notes',
  access: 'staff',
  resource: 'booking',
  id: 'notes',
  handler: createListNotes,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(bookingNotesRoute, {
  summary: 'Notes across bookings, newest first',
  request: notesSchema,
  response: envelope({ notes: z.array(noteSchema) }),
});

export const webhookListRoute = {
  name: 'webhook.list',
  group: 'bookings',
  methods: ['GET'],
  path: 'webhook',
  access: 'staff',
  resource: 'webhook',
  id: '',
  handler: createListWebhooks,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(webhookListRoute, {
  summary: 'Webhook endpoints with their state',
  request: noParameters,
  response: envelope({ webhooks: keyed(webhookSchema) }),
});

export const webhookDeliveriesRoute = {
  name: 'webhook.deliveries',
  group: 'bookings',
  methods: ['GET'],
  path: 'webhook/{webhook_id}/delivery',
  access: 'staff',
  resource: 'webhook',
  id: '',
  handler: createListDeliveries,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(webhookDeliveriesRoute, {
  summary: "An endpoint's recent deliveries, paged",
  request: pagingSchema,
  response: envelope({ deliveries: z.array(deliverySchema) }),
  needs: ['webhook'],
});

export const webhookReplayRoute = {
  name: 'webhook.replay',
  group: 'bookings',
  methods: ['GET', 'POST'],
  path: 'webhook/{webhook_id}/replay',
  access: 'staff',
  resource: 'webhook',
  id: '',
  handler: createReplay,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(webhookReplayRoute, {
  summary: 'Re-send what happened since a time, with the same event ids',
  request: replaySchema,
  response: envelope({
    webhook: webhookSchema,
    replay: z.strictObject({ since: int, events: int, truncated: flag, next_since: int.optional() }),
  }),
  errors: ['invalid_status'],
  needs: ['webhook'],
});

export const webhookEnableRoute = {
  name: 'webhook.enable',
  group: 'bookings',
  methods: ['GET', 'POST'],
  path: 'webhook/{webhook_id}/enable',
  access: 'staff',
  resource: 'webhook',
  id: '',
  handler: createEnable,
} as const satisfies RouteDeclaration<BookingsContext>;

DOCS: describeRoute(webhookEnableRoute, {
  summary: 'Resume a disabled endpoint',
  request: noParameters,
  response: envelope({ webhook: webhookSchema }),
  errors: ['invalid_status'],
  needs: ['webhook'],
});

/** The bookings group's staff routes. */
export const STAFF_ROUTES = [
  customerFindRoute,
  customerGetRoute,
  bookingNotesRoute,
  webhookListRoute,
  webhookDeliveriesRoute,
  webhookReplayRoute,
  webhookEnableRoute,
];
