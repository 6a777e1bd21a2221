import type Stripe from 'stripe';
import { resourceMissing } from './errors.ts';
import { chargeObject, intentObject, refundObject, sessionObject } from './objects.ts';
import {
  type ChargeRecord,
  type EventRecord,
  type EventType,
  type IntentRecord,
  newId,
  type RefundRecord,
  type SessionRecord,
  type StateStore,
} from './state.ts';

/** What caused an event: the API request (its id and `Idempotency-Key`), or nothing (the page, a timer). */
export interface Cause {
  requestId: string | null;
  idempotencyKey: string | null;
}

/** The object an event of type `T` carries, by the SDK's own event types: `emit` cannot send the wrong one. */
export type EventObject<T extends EventType> = Extract<Stripe.Event, { type: T }>['data']['object'];

/** No request: a guest on the checkout page, or a session's deadline passing. */
export const AUTOMATIC: Cause = { requestId: null, idempotencyKey: null };

/**
 * The records, how each is shown as a Stripe object, and the event log: the one place operations, the API,
 * the page and the webhook sender share.
 */
export class Ledger {
  readonly store: StateStore;
  readonly baseUrl: string;
  readonly apiVersion: string;
  /** The stand-in second of the last sweep for due sessions. */
  sweptAt = -1;
  readonly #onEvent: (event: EventRecord) => void;
  readonly #endpointCount: () => number;

  constructor(options: {
    store: StateStore;
    baseUrl: string;
    apiVersion: string;
    endpointCount: () => number;
    onEvent: (event: EventRecord) => void;
  }) {
    this.store = options.store;
    this.baseUrl = options.baseUrl;
    this.apiVersion = options.apiVersion;
    this.#endpointCount = options.endpointCount;
    this.#onEvent = options.onEvent;
  }

  get state() {
    return this.store.state;
  }

  pageUrl(sessionId: string): string {
    return `${this.baseUrl}/c/pay/${sessionId}`;
  }

  session(id: string, param = 'session'): SessionRecord {
    const record = this.state.sessions[id];
    if (!record) throw resourceMissing('checkout.session', id, param);
    return record;
  }

  intent(id: string, param = 'intent'): IntentRecord {
    const record = this.state.intents[id];
    if (!record) throw resourceMissing('payment_intent', id, param);
    return record;
  }

  charge(id: string, param = 'charge'): ChargeRecord {
    const record = this.state.charges[id];
    if (!record) throw resourceMissing('charge', id, param);
    return record;
  }

  refund(id: string, param = 'id'): RefundRecord {
    const record = this.state.refunds[id];
    if (!record) throw resourceMissing('refund', id, param);
    return record;
  }

  event(id: string, param = 'id'): EventRecord {
    const record = this.state.events[id];
    if (!record) throw resourceMissing('event', id, param);
    return record;
  }

  viewSession(record: SessionRecord): Stripe.Checkout.Session {
    return sessionObject(record, this.pageUrl(record.id));
  }

  viewIntent(record: IntentRecord): Stripe.PaymentIntent {
    return intentObject(record);
  }

  viewCharge(record: ChargeRecord): Stripe.Charge {
    // A test card expires some years ahead of whatever the clock says.
    return chargeObject(record, new Date(record.created * 1000).getUTCFullYear() + 3);
  }

  viewRefund(record: RefundRecord): Stripe.Refund {
    return refundObject(record);
  }

  /** The Event as Stripe returns it and posts it (data.object as it was when the event happened). */
  viewEvent(record: EventRecord): Stripe.EventBase {
    return {
      id: record.id,
      object: 'event',
      api_version: this.apiVersion,
      created: record.created,
      data: { object: record.object },
      livemode: false,
      pending_webhooks: record.pendingWebhooks,
      request: { id: record.requestId, idempotency_key: record.idempotencyKey },
      type: record.type,
    };
  }

  /** Records an event with a copy of its object now, and hands it to the webhook sender. */
  emit<T extends EventType>(type: T, object: EventObject<T>, cause: Cause): EventRecord {
    const record: EventRecord = {
      id: newId('evt_'),
      seq: this.store.nextSeq(),
      created: this.store.now(),
      type,
      object: structuredClone(object) as Record<string, unknown>,
      requestId: cause.requestId,
      idempotencyKey: cause.idempotencyKey,
      pendingWebhooks: this.#endpointCount(),
    };
    this.state.events[record.id] = record;
    this.#onEvent(record);
    return record;
  }
}
