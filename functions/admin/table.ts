import { z } from 'zod';
import type { RouteDeclaration } from '#lib/http/group-handler.ts';
import { noParameters } from '#lib/http/validate.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { customerSchema, deliverySchema, flag, int, keyed, webhookSchema } from '../resource-schemas.ts';
import { envelope } from '../responses.ts';
import { describeRoute } from '../route-docs.ts';
import { createFindCustomer, createGetCustomer, customerQuery } from './customers.ts';
import {
  createEnable,
  createListDeliveries,
  createListWebhooks,
  createReplay,
  pagingSchema,
  replaySchema,
} from './webhooks.ts';

/** What the admin group's routes share: the table, and how many events a webhook replay lists. */
export interface AdminContext {
  db: Db;
  replayPageSize?: number | undefined;
}

// The admin group's routes (issue 43's offset): staff's look-ups and configuration that no guest's path
// takes, the customers and the webhook endpoints, in a function of their own so that the guests' bookings
// function carries none of them. Each states its row, its implementation and its documentation, as in
// bookings/table.ts.

export const customerFindRoute = {
  name: 'customer.find',
  group: 'admin',
  methods: ['GET'],
  path: 'customer',
  access: 'staff',
  resource: 'customer',
  id: '',
  handler: createFindCustomer,
} as const satisfies RouteDeclaration<AdminContext>;

DOCS: describeRoute(customerFindRoute, {
  summary: 'Find a customer by email, with bookings',
  request: customerQuery,
  response: envelope({ customers: keyed(customerSchema) }),
});

export const customerGetRoute = {
  name: 'customer.get',
  group: 'admin',
  methods: ['GET'],
  path: 'customer/{customer_id}',
  access: 'staff',
  resource: 'customer',
  id: '',
  handler: createGetCustomer,
} as const satisfies RouteDeclaration<AdminContext>;

DOCS: describeRoute(customerGetRoute, {
  summary: 'One customer, with bookings',
  request: noParameters,
  response: envelope({ customer: customerSchema }),
  needs: ['customer'],
});

export const webhookListRoute = {
  name: 'webhook.list',
  group: 'admin',
  methods: ['GET'],
  path: 'webhook',
  access: 'staff',
  resource: 'webhook',
  id: '',
  handler: createListWebhooks,
} as const satisfies RouteDeclaration<AdminContext>;

DOCS: describeRoute(webhookListRoute, {
  summary: 'Webhook endpoints with their state',
  request: noParameters,
  response: envelope({ webhooks: keyed(webhookSchema) }),
});

export const webhookDeliveriesRoute = {
  name: 'webhook.deliveries',
  group: 'admin',
  methods: ['GET'],
  path: 'webhook/{webhook_id}/delivery',
  access: 'staff',
  resource: 'webhook',
  id: '',
  handler: createListDeliveries,
} as const satisfies RouteDeclaration<AdminContext>;

DOCS: describeRoute(webhookDeliveriesRoute, {
  summary: "An endpoint's recent deliveries, paged",
  request: pagingSchema,
  response: envelope({ deliveries: z.array(deliverySchema) }),
  needs: ['webhook'],
});

export const webhookReplayRoute = {
  name: 'webhook.replay',
  group: 'admin',
  methods: ['GET', 'POST'],
  path: 'webhook/{webhook_id}/replay',
  access: 'staff',
  resource: 'webhook',
  id: '',
  handler: createReplay,
} as const satisfies RouteDeclaration<AdminContext>;

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
  group: 'admin',
  methods: ['GET', 'POST'],
  path: 'webhook/{webhook_id}/enable',
  access: 'staff',
  resource: 'webhook',
  id: '',
  handler: createEnable,
} as const satisfies RouteDeclaration<AdminContext>;

DOCS: describeRoute(webhookEnableRoute, {
  summary: 'Resume a disabled endpoint',
  request: noParameters,
  response: envelope({ webhook: webhookSchema }),
  errors: ['invalid_status'],
  needs: ['webhook'],
});

/** The admin group's routes, in the table's order. */
export const ADMIN_ROUTES = [
  customerFindRoute,
  customerGetRoute,
  webhookListRoute,
  webhookDeliveriesRoute,
  webhookReplayRoute,
  webhookEnableRoute,
];
