import { z } from 'zod';
import type { RouteDeclaration } from '#lib/http/group-handler.ts';
import { int, money, paymentSchema } from '../resource-schemas.ts';
import { envelope } from '../responses.ts';
import { describeRoute } from '../route-docs.ts';
import { cancelConfirmSchema, cancelQuoteQuery, createCancelConfirm, createCancelQuote } from './guest.ts';
import {
  changeConfirmSchema,
  changeQuoteQuery,
  createChangeConfirm,
  createChangeQuote,
} from './guest-change.ts';
import { captureSchema, createCapture, createRefund, refundSchema } from './staff.ts';
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

// A function, so that the functions' bundles (which drop the DOCS statements) leave the schemas out.
const staffPaymentResponse = () =>
  envelope({
    payment: paymentSchema,
    booking: z.strictObject({
      booking_id: int,
      code: z.string(),
      status_id: z.string(),
      total: money,
      paid_total: money,
      due: money,
    }),
  });

export const paymentCaptureRoute = {
  name: 'payment.capture',
  group: 'payments',
  methods: ['POST'],
  path: 'booking/{booking_id}/payment/{payment_id}/capture',
  access: 'staff',
  resource: 'booking',
  id: '',
  handler: createCapture,
} as const satisfies RouteDeclaration<PaymentsContext>;

DOCS: describeRoute(paymentCaptureRoute, {
  summary: 'Capture an authorised payment, all of it or `amount` (staff, not partners)',
  request: captureSchema,
  response: staffPaymentResponse(),
  errors: ['forbidden', 'invalid_status', 'busy'],
  needs: ['payment-authorised'],
});

export const paymentRefundRoute = {
  name: 'payment.refund',
  group: 'payments',
  methods: ['POST'],
  path: 'booking/{booking_id}/payment/{payment_id}/refund',
  access: 'staff',
  resource: 'booking',
  id: '',
  handler: createRefund,
} as const satisfies RouteDeclaration<PaymentsContext>;

DOCS: describeRoute(paymentRefundRoute, {
  summary:
    'Refund part or all of a captured payment, through its provider or recorded as paid back by hand (staff, not partners)',
  request: refundSchema,
  response: staffPaymentResponse(),
  errors: ['forbidden', 'invalid_status', 'busy'],
  needs: ['payment'],
});

/** The payments group's routes, in the table's order. */
// The guest's cancel of their own booking (issue 44): the quote, then the cancel that holds to it.
const guestCancellation = () =>
  z.looseObject({
    quote: z.string(),
    refund: money,
    paid: money,
    fee: money,
    deposit_kept: money,
    currency: z.string(),
    cutoff_at: int.optional(),
    text: z.string(),
  });

export const guestCancelQuoteRoute = {
  name: 'booking.manage.cancel.quote',
  group: 'payments',
  methods: ['GET'],
  path: 'booking/{booking_id}/manage/cancel',
  access: 'token',
  resource: 'booking',
  id: 'cancel',
  handler: createCancelQuote,
} as const satisfies RouteDeclaration<PaymentsContext>;

DOCS: describeRoute(guestCancelQuoteRoute, {
  summary: "What the guest would get back if they cancelled now (the booking's token)",
  request: cancelQuoteQuery,
  response: envelope({ cancellation: guestCancellation() }),
  errors: ['invalid_status', 'rate_limited'],
  needs: ['guest-token', 'cancellation-policy'],
});

export const guestCancelRoute = {
  name: 'booking.manage.cancel',
  group: 'payments',
  methods: ['POST'],
  path: 'booking/{booking_id}/manage/cancel',
  access: 'token',
  resource: 'booking',
  id: 'cancel',
  writes: true,
  handler: createCancelConfirm,
} as const satisfies RouteDeclaration<PaymentsContext>;

DOCS: describeRoute(guestCancelRoute, {
  summary: "The guest cancels their booking, holding to the quote they saw (the booking's token)",
  request: cancelConfirmSchema,
  response: envelope({
    cancellation: guestCancellation().extend({ through_provider: money, owed: money }),
    booking: z.strictObject({ code: z.string(), status_id: z.string(), paid_total: money }),
  }),
  errors: ['invalid_status', 'rate_limited', 'busy'],
  needs: ['guest-token', 'cancellation-policy', 'cancel-quote'],
});

// The guest's change of their own booking (issue 44): the quote, then the change that holds to it.
const guestChange = () =>
  z.looseObject({
    quote: z.string(),
    mode: z.enum(['change', 'pay']).describe('`pay`: the change is made once `charge` is paid.'),
    to: z.looseObject({
      start_date: int,
      end_date: int,
      date_desc: z.string(),
      total: money,
      items: z.record(z.string(), z.looseObject({ item_id: int, name: z.string(), total: money })),
    }),
    from_total: money,
    difference: money,
    refund: money,
    kept: money,
    charge: money,
    currency: z.string(),
    text: z.string(),
  });

export const guestChangeQuoteRoute = {
  name: 'booking.manage.change.quote',
  group: 'payments',
  methods: ['GET'],
  path: 'booking/{booking_id}/manage/change',
  access: 'token',
  resource: 'booking',
  id: 'change',
  handler: createChangeQuote,
} as const satisfies RouteDeclaration<PaymentsContext>;

DOCS: describeRoute(guestChangeQuoteRoute, {
  summary: "What new dates or a new party would cost or give back now (the booking's token)",
  request: changeQuoteQuery,
  response: envelope({ change: guestChange() }),
  errors: ['invalid_status', 'unavailable', 'hold_limit', 'rate_limited'],
  needs: ['guest-token', 'cancellation-policy', 'change-dates'],
});

export const guestChangeRoute = {
  name: 'booking.manage.change',
  group: 'payments',
  methods: ['POST'],
  path: 'booking/{booking_id}/manage/change',
  access: 'token',
  resource: 'booking',
  id: 'change',
  writes: true,
  handler: createChangeConfirm,
} as const satisfies RouteDeclaration<PaymentsContext>;

DOCS: describeRoute(guestChangeRoute, {
  summary:
    "The guest moves their booking to new dates or a new party, holding to the quote they saw (the booking's token)",
  request: changeConfirmSchema,
  response: envelope({
    change: z.looseObject({
      quote: z.string(),
      made: z.boolean().describe('false: it waits for `payment` (the difference) to be paid.'),
      difference: money,
      refund: money,
      kept: money,
      charge: money,
      through_provider: money,
      owed: money,
      currency: z.string(),
      payment: z.looseObject({ amount: money, deadline: int, url: z.string().optional() }).optional(),
    }),
    booking: z.strictObject({
      code: z.string(),
      status_id: z.string(),
      start_date: int,
      end_date: int,
      total: money,
      paid_total: money,
    }),
  }),
  errors: ['invalid_status', 'unavailable', 'hold_limit', 'rate_limited', 'busy'],
  needs: ['guest-token', 'cancellation-policy', 'change-dates', 'change-quote'],
});

export const PAYMENTS_ROUTES = [
  stripeWebhookRoute,
  paymentCaptureRoute,
  paymentRefundRoute,
  guestCancelQuoteRoute,
  guestCancelRoute,
  guestChangeQuoteRoute,
  guestChangeRoute,
];
