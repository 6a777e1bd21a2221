import { randomBytes } from 'node:crypto';
import { Journaled } from './journal.ts';

/** One line of a Checkout Session, from `line_items[n][price_data]` and `quantity`. */
export interface LineItemRecord {
  id: string;
  name: string;
  description: string | null;
  unitAmount: number;
  quantity: number;
}

/** A Checkout Session in `payment` mode. */
export interface SessionRecord {
  id: string;
  seq: number;
  created: number;
  expiresAt: number;
  currency: string;
  amountTotal: number;
  lineItems: LineItemRecord[];
  metadata: Record<string, string>;
  captureMethod: 'automatic' | 'manual';
  intentMetadata: Record<string, string>;
  intentDescription: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  customerEmail: string | null;
  clientReferenceId: string | null;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'paid' | 'unpaid';
  paymentIntentId: string | null;
}

/** Why the last attempt of a PaymentIntent failed (`last_payment_error`). */
export interface PaymentErrorRecord {
  chargeId: string;
  code: string;
  declineCode: string;
  message: string;
  paymentMethodId: string;
}

/** A PaymentIntent, created when a guest first tries to pay a session (as Stripe does since 2022-08-01). */
export interface IntentRecord {
  id: string;
  seq: number;
  created: number;
  amount: number;
  currency: string;
  captureMethod: 'automatic' | 'manual';
  metadata: Record<string, string>;
  description: string | null;
  receiptEmail: string | null;
  status: 'requires_payment_method' | 'requires_capture' | 'succeeded' | 'canceled';
  amountCapturable: number;
  amountReceived: number;
  latestChargeId: string | null;
  paymentMethodId: string | null;
  canceledAt: number | null;
  cancellationReason: 'abandoned' | 'duplicate' | 'fraudulent' | 'requested_by_customer' | null;
  lastPaymentError: PaymentErrorRecord | null;
  sessionId: string | null;
}

/** A card charge: an authorisation (captured or not) or a declined attempt. */
export interface ChargeRecord {
  id: string;
  seq: number;
  created: number;
  amount: number;
  currency: string;
  paymentIntentId: string;
  paymentMethodId: string;
  status: 'succeeded' | 'failed';
  captured: boolean;
  amountCaptured: number;
  /** What was never captured and so given back: a partial capture's rest, or a canceled authorisation. */
  released: number;
  /** The sum of the Refunds made on it. */
  refundedByRefunds: number;
  failure: { code: string; declineCode: string; message: string } | null;
  metadata: Record<string, string>;
  billingEmail: string | null;
}

/** A Refund of (part of) a captured charge. */
export interface RefundRecord {
  id: string;
  seq: number;
  created: number;
  amount: number;
  currency: string;
  chargeId: string;
  paymentIntentId: string;
  metadata: Record<string, string>;
  reason: 'duplicate' | 'fraudulent' | 'requested_by_customer' | null;
}

/** The event types the stand-in emits: the subset issue 43 names. */
export type EventType =
  | 'checkout.session.completed'
  | 'checkout.session.expired'
  | 'payment_intent.succeeded'
  | 'payment_intent.amount_capturable_updated'
  | 'payment_intent.payment_failed'
  | 'payment_intent.canceled'
  | 'charge.refunded';

/** An Event: the object as it was when it happened, and the request that caused it. */
export interface EventRecord {
  id: string;
  seq: number;
  created: number;
  type: EventType;
  object: Record<string, unknown>;
  requestId: string | null;
  idempotencyKey: string | null;
  pendingWebhooks: number;
}

/** One event on its way to one endpoint. */
export interface DeliveryRecord {
  id: string;
  eventId: string;
  endpoint: string;
  /** `held` waits for a release ("late"); `pending` is attempted at `nextAt` (wall-clock ms). */
  state: 'pending' | 'held' | 'delivered' | 'failed';
  attempts: number;
  nextAt: number;
  lastStatus: number | null;
  lastError: string | null;
  /** A copy sent on request (a duplicate, a late resend): it does not count in `pending_webhooks`. */
  copy: boolean;
  /** In a released or reordered batch, the delivery whose first attempt must be over before this one's. */
  after?: string;
}

/** The first answer to an `Idempotency-Key`, kept 24 hours. */
export interface IdempotencyRecord {
  key: string;
  endpoint: string;
  params: string;
  status: number;
  body: string;
  requestId: string;
  created: number;
}

/** Everything the stand-in remembers; written whole, atomically, after every change. */
export interface StandInState {
  version: 1;
  /** The keys made on first start, so a restart answers to the same ones. */
  secretKey?: string;
  webhookSecret?: string;
  clockOffsetMs: number;
  seq: number;
  sessions: Record<string, SessionRecord>;
  intents: Record<string, IntentRecord>;
  charges: Record<string, ChargeRecord>;
  refunds: Record<string, RefundRecord>;
  events: Record<string, EventRecord>;
  deliveries: Record<string, DeliveryRecord>;
  idempotency: Record<string, IdempotencyRecord>;
}

const emptyState = (): StandInState => ({
  version: 1,
  clockOffsetMs: 0,
  seq: 0,
  sessions: {},
  intents: {},
  charges: {},
  refunds: {},
  events: {},
  deliveries: {},
  idempotency: {},
});

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A Stripe-looking id: the prefix and random letters and digits (`pi_` + 24). */
export function newId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = prefix;
  // 248 is the largest multiple of 62 under 256: rejecting above it keeps the letters uniform.
  for (const byte of bytes) out += byte < 248 ? ALPHABET[byte % 62] : ALPHABET[(byte >> 2) % 62];
  return out;
}

/** The stand-in's memory: its state, the clock it can advance, and the files it survives restarts in. */
export class StateStore {
  readonly state: StandInState;
  readonly #journaled: Journaled<StandInState>;

  constructor(file: string | undefined) {
    this.#journaled = new Journaled(file, emptyState);
    this.state = this.#journaled.state;
  }

  /** Milliseconds on the stand-in's clock: the wall clock plus whatever a test advanced it by. */
  nowMs(): number {
    return Date.now() + this.state.clockOffsetMs;
  }

  /** Seconds on the stand-in's clock, as Stripe's `created` and `expires_at` count. */
  now(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  /** The next creation number: lists are ordered by it, since `created` has only seconds. */
  nextSeq(): number {
    this.state.seq += 1;
    return this.state.seq;
  }

  /** Makes what changed durable; called before an answer leaves: what Stripe answered, it never forgets. */
  save(): void {
    this.#journaled.flush();
  }

  /** Folds the journal into the snapshot (at stop, so the data directory is one JSON file again). */
  compact(): void {
    this.#journaled.compact();
  }
}
