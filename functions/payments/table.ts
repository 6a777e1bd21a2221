import { z } from 'zod';
import type { RouteDeclaration } from '#lib/http/group-handler.ts';
import { describeRoute } from '../route-docs.ts';
import { createStripeWebhook, type PaymentsContext } from './webhook.ts';

// The payments group's routes (issue 43): the payment provider's webhook, its own function, so that the
// provider's SDK and the payment flow load where a payment call is made and nowhere else.

export const stripeWebhookRoute = {
  name: 'payment.stripe.webhook',
  group: 'payments',
  methods: ['POST'],
  path: 'payment/stripe/webhook',
  // No credentials: Stripe signs the body instead, and the route checks that signature itself.
  access: 'public',
  resource: 'payment',
  id: 'webhook',
  kind: 'hook',
  serve: (context) => createStripeWebhook(context),
} as const satisfies RouteDeclaration<PaymentsContext>;

DOCS: describeRoute(stripeWebhookRoute, {
  summary: "Stripe's webhook: a signed event applied to its booking's payment, once",
  response: z.strictObject({
    received: z.literal(true),
    outcome: z.enum([
      'applied',
      'unchanged',
      'unknown',
      'given_back',
      'duplicate',
      'ignored',
      'foreign',
      'orphan',
    ]),
  }),
  errors: ['validation_error', 'busy'],
});

/** The payments group's routes, in the table's order. */
export const PAYMENTS_ROUTES = [stripeWebhookRoute];
