import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type ApplyOutcome, applyProviderPayment, closeProviderCheckout } from '#lib/bookings/index.ts';
import { getConfig } from '#lib/config/index.ts';
import { ApiError } from '#lib/http/errors.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { unixSeconds } from '#lib/kernel/time.ts';
import {
  claimProviderEvent,
  completeProviderEvent,
  type Payment,
  type PaymentEvent,
  type PaymentMetadata,
  type PaymentProvider,
  PaymentProviderError,
  type ProviderSource,
  recordOrphanEvent,
  releaseProviderEvent,
  withCallLimits,
} from '#lib/payments/index.ts';
import { logger } from '#lib/runtime/logger.ts';

/** What the payments group's routes share. */
export interface PaymentsContext {
  db: Db;
  payments?: ProviderSource | undefined;
  clock?: (() => number) | undefined;
  /** How long one provider call of a delivery may take (`WEBHOOK_PROVIDER_CALL_MS` unless set). */
  providerCallMs?: number | undefined;
}

/**
 * How long one call to the provider may take while a delivery is handled; all of them, twice that. Both well
 * within the 30 s lease of the event's claim (event-repository.ts), so a redelivery never finds the event
 * still being handled by a delivery that hangs: that one answers 503, gives the event back, and the provider
 * retries (the adapter alone tries three times, 8 s each).
 */
export const WEBHOOK_PROVIDER_CALL_MS = 10_000;

/** What a delivery came to: acted on, or why not (a 2xx either way: the provider must not retry it). */
export type WebhookOutcome = ApplyOutcome | 'duplicate' | 'ignored' | 'foreign' | 'orphan';

/**
 * How long after the provider made an event naming a booking or attempt not recorded here it is still
 * answered 503 for the provider to retry: a create commits its booking and attempt before the provider hears
 * of them, so only a moment's race (or a replica behind) explains one; later it is an orphan. Stripe retries
 * a failed delivery for three days, which would be three days of 503s.
 */
export const ORPHAN_AFTER_SECONDS = 3600;

const answer = (outcome: WebhookOutcome): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  body: JSON.stringify({ received: true, outcome }),
});

/** A missing, wrong or stale signature: 400, and nothing read or changed. */
const invalidSignature = () =>
  new ApiError('validation_error', {
    details: 'The webhook signature does not verify (wrong secret, altered body or stale timestamp)',
    data: { 'stripe-signature': 'does not verify' },
  });

/** The exact bytes the provider signed: API Gateway hands a body it deems binary over in base64. */
const rawBodyOf = (event: APIGatewayProxyEventV2): Buffer =>
  Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');

/** The provider's object the event names, read back (the event is a trigger, never the truth). */
async function readBack(
  provider: PaymentProvider,
  event: PaymentEvent,
): Promise<{ payment?: Payment; checkoutId?: string; metadata: PaymentMetadata }> {
  if (event.object === 'checkout') {
    const view = await provider.readCheckout(event.objectId);
    const payment =
      view.payment ??
      (view.providerPaymentId ? await provider.readPayment(view.providerPaymentId) : undefined);
    return { ...(payment ? { payment } : {}), checkoutId: view.checkoutId, metadata: view.metadata };
  }
  const payment = await provider.readPayment(event.objectId);
  return { payment, metadata: payment.metadata };
}

/** A delivery's event applied to its booking, once: what it came to. */
async function handleEvent(
  context: PaymentsContext & { provider: PaymentProvider; now: number },
  event: PaymentEvent,
): Promise<WebhookOutcome> {
  const config = await getConfig(context.db);
  if (!config) throw new Error('No tenant configuration');
  // A refund of a charge made without a PaymentIntent (another integration on the same account) names none.
  if (!event.objectId) return 'ignored';
  let read: Awaited<ReturnType<typeof readBack>>;
  try {
    read = await readBack(context.provider, event);
  } catch (error) {
    if (!(error instanceof PaymentProviderError && error.code === 'not_found')) throw error;
    // Signed with our secret but naming nothing the provider has under our key (another mode or account): no
    // retry will ever read it, and three days of 5xx would get the endpoint disabled.
    logger.error('payment event for an object the provider does not have', {
      event_id: event.eventId,
      event_type: event.type,
      object_id: event.objectId,
    });
    return 'ignored';
  }
  const { payment, checkoutId, metadata } = read;
  // Our ids as the provider's object carries them: another tenant's, or none of ours, change nothing here.
  if (metadata.tenantId !== config.tenant) return 'foreign';
  const bookingId = Number(metadata.bookingId);
  if (!Number.isSafeInteger(bookingId) || bookingId < 1 || !metadata.paymentId) return 'ignored';
  // A checkout closed with no money taken: its attempt can no longer be paid (a payment it made, if any, was
  // declined and is cancelled with it).
  const taken = payment?.state === 'captured' || payment?.state === 'authorised';
  if (event.type === 'checkout.expired' && checkoutId && !taken)
    return closeProviderCheckout(
      { db: context.db, config, now: context.now, provider: context.provider },
      { bookingId, paymentId: metadata.paymentId, checkoutId },
    );
  if (!payment) return 'unchanged';
  return applyProviderPayment(
    { db: context.db, config, now: context.now, provider: context.provider },
    { bookingId, paymentId: metadata.paymentId, payment, checkoutId },
  );
}

/**
 * POST payment/stripe/webhook: the signature checked on the exact bytes received (300 s tolerance), the event
 * id recorded once, the object read back from the provider and applied forward only. A bad or stale signature
 * is 400 with nothing changed; an event for a booking or attempt not (yet) recorded is 503, so the provider
 * retries; the event is given back on any failure, so that retry is acted on (and a claim that was not given
 * back, the function gone mid-way, lapses after its lease). A delivery of an event another is handling is 503.
 */
export const createStripeWebhook =
  (context: PaymentsContext) =>
  async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const now = (context.clock ?? Date.now)();
    const signature = event.headers?.['stripe-signature'] ?? '';
    if (!signature) throw invalidSignature();
    const provider = await context.payments?.();
    // No keys, no way to verify: for this service, there is no such endpoint (until an operator puts them in).
    if (!provider)
      throw new ApiError('not_found', {
        details: 'This service takes no payments: no payment provider is configured',
        data: { path: event.rawPath },
      });
    let verified: PaymentEvent;
    try {
      verified = await provider.readEvent(rawBodyOf(event), signature, unixSeconds(now));
    } catch (error) {
      if (!(error instanceof PaymentProviderError && error.code === 'invalid_signature')) throw error;
      throw invalidSignature();
    }
    if (verified.type === 'ignored') return answer('ignored');
    const ids = { provider: provider.name, eventId: verified.eventId };
    const claim = await claimProviderEvent(context.db, { ...ids, nowSeconds: unixSeconds(now) });
    if (claim === 'duplicate') return answer('duplicate');
    if (claim === 'in_progress')
      throw new ApiError('busy', {
        details: 'This event is being handled by another delivery; the provider retries',
        headers: { 'retry-after': '5' },
      });
    const callMs = context.providerCallMs ?? WEBHOOK_PROVIDER_CALL_MS;
    const bounded = withCallLimits(provider, { callMs, endBy: Date.now() + 2 * callMs });
    let outcome: WebhookOutcome;
    try {
      outcome = await handleEvent({ ...context, provider: bounded, now }, verified);
    } catch (error) {
      await releaseProviderEvent(context.db, ids).catch(() => undefined);
      // The provider unreachable, failing or too slow: nothing was applied; it retries the event.
      if (error instanceof PaymentProviderError && error.retryable)
        throw new ApiError('busy', {
          details: 'The payment provider could not be read; the provider retries',
          headers: { 'retry-after': '30' },
          cause: error,
        });
      throw error;
    }
    if (outcome === 'unknown' && unixSeconds(now) - verified.created > ORPHAN_AFTER_SECONDS) {
      // Given up: kept claimed (a redelivery is a duplicate), what it named recorded and logged for an operator.
      const { bookingId, paymentId } = verified.metadata;
      await recordOrphanEvent(context.db, {
        ...ids,
        objectId: verified.objectId,
        bookingId,
        paymentId,
        nowSeconds: unixSeconds(now),
      });
      logger.error('payment event for a booking or attempt not recorded here, given up', {
        event_id: verified.eventId,
        event_type: verified.type,
        object_id: verified.objectId,
        booking_id: bookingId,
        payment_id: paymentId,
      });
      return answer('orphan');
    }
    if (outcome === 'unknown') {
      await releaseProviderEvent(context.db, ids);
      logger.warn('payment event for an unknown booking or attempt', { event_id: verified.eventId });
      throw new ApiError('busy', {
        details: 'The payment names a booking not recorded yet; the provider retries',
        headers: { 'retry-after': '5' },
      });
    }
    await completeProviderEvent(context.db, ids);
    return answer(outcome);
  };
