// The payments context's public entry (issue 43): the port's words, its error, and the Stripe adapter's
// factory. Importing this loads no payment SDK; the adapter loads it at its first call.

export type { CallLimits } from './deadline.ts';
export { withCallLimits } from './deadline.ts';
export type { DueNow, PaymentKind } from './due.ts';
export { checkoutExpiresAt, dueNow } from './due.ts';
export type { PaymentErrorCode, RefusalReason } from './errors.ts';
export { PaymentProviderError } from './errors.ts';
export {
  claimProviderEvent,
  completeProviderEvent,
  PROVIDER_EVENT_LEASE_SECONDS,
  type ProviderEventClaim,
  recordOrphanEvent,
  releaseProviderEvent,
} from './event-repository.ts';
export type {
  CaptureMode,
  Checkout,
  CheckoutLine,
  CheckoutState,
  CheckoutView,
  Payment,
  PaymentEvent,
  PaymentEventType,
  PaymentMetadata,
  PaymentProvider,
  PaymentState,
  Refund,
  RefundState,
  StartCheckoutInput,
} from './port.ts';
export type { ProviderSource } from './provider-from-env.ts';
export { paymentProviderFromEnv } from './provider-from-env.ts';
export { SIGNATURE_TOLERANCE_SECONDS, stripeProvider } from './stripe-adapter.ts';
export type { StripeProviderOptions } from './stripe-config.ts';
export { STRIPE_API_VERSION } from './stripe-config.ts';
