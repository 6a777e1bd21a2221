import { invalidParam, resourceMissing, StripeParamError } from './errors.ts';
import { applyExpand, checkExpand, listPage, readPage } from './expand.ts';
import type { Cause, Ledger } from './ledger.ts';
import {
  cancelIntent,
  captureIntent,
  createRefund,
  createSession,
  expireSession,
  type SessionInput,
} from './operations.ts';
import { checkCurrency, checkEmail, checkUrl, ParamReader, type Params } from './params.ts';
import type { EventType } from './state.ts';

/** What a validated request does: runs against the ledger and returns the object to answer with. */
export type Execute = (ledger: Ledger, cause: Cause) => unknown;

/** One route of the `/v1` subset: its validation, which returns what executing it will do. */
export interface Route {
  method: 'GET' | 'POST';
  path: RegExp;
  prepare: (params: Params, id: string) => Execute;
}

const read = (params: Params) => new ParamReader(params);

function sessionInput(reader: ParamReader): SessionInput {
  reader.choice('mode', ['payment'], { required: true });
  const lines = reader.list('line_items', { required: true, max: 100 }) ?? [];
  const topCurrency = checkCurrency(reader, 'currency');
  const lineItems = lines.map((line) => {
    if (line.has('price')) {
      const price = line.string('price') ?? '';
      throw resourceMissing('price', price, line.name('price'));
    }
    const priceData = line.object('price_data', { required: true }) as ParamReader;
    const currency = checkCurrency(priceData, 'currency', { required: true }) as string;
    const product = priceData.object('product_data', { required: true }) as ParamReader;
    const name = product.string('name', { required: true, max: 5000 }) as string;
    const description = product.string('description', { max: 40_000 }) ?? null;
    product.done();
    const unitAmount = priceData.integer('unit_amount', {
      required: true,
      min: 0,
      max: 99_999_999,
    }) as number;
    priceData.done();
    const quantity = line.integer('quantity', { required: true, min: 1, max: 999_999 }) as number;
    line.done();
    return { name, description, unitAmount, quantity, currency };
  });
  const currency = topCurrency ?? lineItems[0]?.currency ?? 'usd';
  const mixed = lineItems.findIndex((line) => line.currency !== currency);
  if (mixed >= 0)
    throw invalidParam(
      `line_items[${mixed}][price_data][currency]`,
      'All line items must use the same currency.',
    );
  const intentData = reader.object('payment_intent_data');
  const captureMethod = intentData?.choice('capture_method', ['automatic', 'automatic_async', 'manual']);
  const input: SessionInput = {
    currency,
    lineItems: lineItems.map(({ currency: _, ...line }) => line),
    expiresAt: reader.integer('expires_at'),
    metadata: reader.metadata('metadata') ?? {},
    captureMethod: captureMethod === 'manual' ? 'manual' : 'automatic',
    intentMetadata: intentData?.metadata('metadata') ?? {},
    intentDescription: intentData?.string('description', { max: 1000 }) ?? null,
    successUrl: checkUrl(reader, 'success_url') ?? null,
    cancelUrl: checkUrl(reader, 'cancel_url') ?? null,
    customerEmail: checkEmail(reader, 'customer_email') ?? null,
    clientReferenceId: reader.string('client_reference_id', { max: 200 }) ?? null,
  };
  intentData?.done();
  const methods = reader.strings('payment_method_types') ?? ['card'];
  const other = methods.find((method) => method !== 'card');
  // The stand-in takes cards only: another method is refused rather than silently ignored.
  if (other !== undefined)
    throw invalidParam(
      'payment_method_types',
      `The payment method type \`${other}\` is not offered by the Stripe stand-in: cards only.`,
    );
  return input;
}

/** The `/v1` routes the service's adapter uses (issue 43), each validated before it runs. */
export const ROUTES: Route[] = [
  {
    method: 'POST',
    path: /^\/v1\/checkout\/sessions$/,
    prepare: (params) => {
      const reader = read(params);
      const input = sessionInput(reader);
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'checkout.session');
      return (ledger) => applyExpand(ledger, ledger.viewSession(createSession(ledger, input)), expand);
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/checkout\/sessions$/,
    prepare: (params) => {
      const reader = read(params);
      const page = readPage(reader);
      const paymentIntent = reader.string('payment_intent');
      const status = reader.choice('status', ['open', 'complete', 'expired']);
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'checkout.session', true);
      return (ledger) => {
        const records = Object.values(ledger.state.sessions).filter(
          (s) => (!paymentIntent || s.paymentIntentId === paymentIntent) && (!status || s.status === status),
        );
        const list = listPage({
          records,
          page,
          objectName: 'checkout.session',
          url: '/v1/checkout/sessions',
          view: (s) => ledger.viewSession(s),
        });
        return applyExpand(ledger, list, expand);
      };
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/checkout\/sessions\/([^/]+)$/,
    prepare: (params, id) => {
      const reader = read(params);
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'checkout.session');
      return (ledger) => applyExpand(ledger, ledger.viewSession(ledger.session(id)), expand);
    },
  },
  {
    method: 'POST',
    path: /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/,
    prepare: (params, id) => {
      const reader = read(params);
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'checkout.session');
      return (ledger, cause) =>
        applyExpand(ledger, ledger.viewSession(expireSession(ledger, id, cause)), expand);
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/payment_intents$/,
    prepare: (params) => {
      const reader = read(params);
      const page = readPage(reader);
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'payment_intent', true);
      return (ledger) =>
        applyExpand(
          ledger,
          listPage({
            records: Object.values(ledger.state.intents),
            page,
            objectName: 'payment_intent',
            url: '/v1/payment_intents',
            view: (r) => ledger.viewIntent(r),
          }),
          expand,
        );
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/payment_intents\/([^/]+)$/,
    prepare: (params, id) => {
      const reader = read(params);
      const expand = reader.expand();
      // Stripe.js sends it with a publishable key; a secret-key caller may send it too.
      reader.string('client_secret');
      reader.done();
      checkExpand(expand, 'payment_intent');
      return (ledger) => applyExpand(ledger, ledger.viewIntent(ledger.intent(id)), expand);
    },
  },
  {
    method: 'POST',
    path: /^\/v1\/payment_intents\/([^/]+)\/capture$/,
    prepare: (params, id) => {
      const reader = read(params);
      const amount = reader.integer('amount_to_capture', { min: 1, max: 99_999_999 });
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'payment_intent');
      return (ledger, cause) =>
        applyExpand(ledger, ledger.viewIntent(captureIntent(ledger, id, amount, cause)), expand);
    },
  },
  {
    method: 'POST',
    path: /^\/v1\/payment_intents\/([^/]+)\/cancel$/,
    prepare: (params, id) => {
      const reader = read(params);
      const reason =
        reader.choice('cancellation_reason', [
          'abandoned',
          'duplicate',
          'fraudulent',
          'requested_by_customer',
        ]) ?? null;
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'payment_intent');
      return (ledger, cause) =>
        applyExpand(ledger, ledger.viewIntent(cancelIntent(ledger, id, reason, cause)), expand);
    },
  },
  {
    method: 'POST',
    path: /^\/v1\/refunds$/,
    prepare: (params) => {
      const reader = read(params);
      const paymentIntent = reader.string('payment_intent');
      if (paymentIntent === undefined)
        throw new StripeParamError({
          code: 'parameter_missing',
          param: 'payment_intent',
          // Stripe's words: it takes `charge` too, which the stand-in refuses as unknown.
          message:
            'One of the following params should be provided for this request: payment_intent or charge.',
        });
      const amount = reader.integer('amount', { min: 1, max: 99_999_999 });
      const metadata = reader.metadata('metadata') ?? {};
      const reason = reader.choice('reason', ['duplicate', 'fraudulent', 'requested_by_customer']) ?? null;
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'refund');
      return (ledger, cause) =>
        applyExpand(
          ledger,
          ledger.viewRefund(createRefund(ledger, { paymentIntent, amount, metadata, reason }, cause)),
          expand,
        );
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/refunds$/,
    prepare: (params) => {
      const reader = read(params);
      const page = readPage(reader);
      const paymentIntent = reader.string('payment_intent');
      const charge = reader.string('charge');
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'refund', true);
      return (ledger) => {
        const records = Object.values(ledger.state.refunds).filter(
          (r) =>
            (!paymentIntent || r.paymentIntentId === paymentIntent) && (!charge || r.chargeId === charge),
        );
        return applyExpand(
          ledger,
          listPage({
            records,
            page,
            objectName: 'refund',
            url: '/v1/refunds',
            view: (r) => ledger.viewRefund(r),
          }),
          expand,
        );
      };
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/refunds\/([^/]+)$/,
    prepare: (params, id) => {
      const reader = read(params);
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'refund');
      return (ledger) => applyExpand(ledger, ledger.viewRefund(ledger.refund(id)), expand);
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/charges\/([^/]+)$/,
    prepare: (params, id) => {
      const reader = read(params);
      const expand = reader.expand();
      reader.done();
      checkExpand(expand, 'charge');
      return (ledger) => applyExpand(ledger, ledger.viewCharge(ledger.charge(id)), expand);
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/events$/,
    prepare: (params) => {
      const reader = read(params);
      const page = readPage(reader);
      const type = reader.string('type') as EventType | undefined;
      reader.done();
      return (ledger) =>
        listPage({
          records: Object.values(ledger.state.events).filter((e) => !type || e.type === type),
          page,
          objectName: 'event',
          url: '/v1/events',
          view: (e) => ledger.viewEvent(e),
        });
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/events\/([^/]+)$/,
    prepare: (params, id) => {
      read(params).done();
      return (ledger) => ledger.viewEvent(ledger.event(id));
    },
  },
];
