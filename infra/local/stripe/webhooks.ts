import { createHmac } from 'node:crypto';
import type { Ledger } from './ledger.ts';
import { type DeliveryRecord, type EventRecord, newId } from './state.ts';

/** How deliveries are retried: Stripe's schedule, shortened (it retries for days) and configurable. */
export interface RetryPolicy {
  /** Wait before the second attempt; it doubles after each failure. */
  baseMs: number;
  maxMs: number;
  /** Attempts before a delivery is given up (`failed`). */
  maxAttempts: number;
  /** An endpoint that has not answered by then has failed this attempt. */
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 500, maxMs: 30_000, maxAttempts: 8, timeoutMs: 10_000 };

/** Faults the soak and the tests turn on (each documented in docs/payments-stand-in.md). */
export interface WebhookFaults {
  /** Every event is delivered twice. */
  duplicate: boolean;
  /** Each delivery waits this long before its first attempt. */
  delayMs: number;
  /** Deliveries wait ("late") until `release()`. */
  hold: boolean;
  /** Deliveries gather in groups of this size and go out newest first (0 or 1: off). */
  reorderWindow: number;
}

export const NO_WEBHOOK_FAULTS: WebhookFaults = {
  duplicate: false,
  delayMs: 0,
  hold: false,
  reorderWindow: 0,
};

/** One endpoint the stand-in posts events to, with its `whsec_` signing secret. */
export interface WebhookEndpoint {
  url: string;
  secret: string;
}

/**
 * `Stripe-Signature` as Stripe computes it: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload">`, keyed
 * with the whole `whsec_` secret.
 */
export function signPayload(payload: string, secret: string, timestamp: number): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

/** Posts events to the endpoints, retrying with backoff, with the faults a test asks for. */
export class WebhookSender {
  readonly #ledger: () => Ledger;
  readonly #endpoints: WebhookEndpoint[];
  readonly #retry: RetryPolicy;
  faults: WebhookFaults = { ...NO_WEBHOOK_FAULTS };
  /** Deliveries gathered for a reordered release. */
  #window: DeliveryRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #inFlight = new Set<string>();
  /** The ids of pending deliveries, so scheduling never scans every delivery ever made. */
  #pending = new Set<string>();
  #abort = new AbortController();
  #stopped = false;

  constructor(ledger: () => Ledger, endpoints: WebhookEndpoint[], retry: RetryPolicy) {
    this.#ledger = ledger;
    this.#endpoints = endpoints;
    this.#retry = retry;
  }

  get endpointCount(): number {
    return this.#endpoints.length;
  }

  /** Queues an event for every endpoint (twice when duplicating); called as the event is recorded. */
  enqueue(event: EventRecord, options: { copy?: boolean } = {}): void {
    const copies = this.faults.duplicate ? 2 : 1;
    for (const endpoint of this.#endpoints)
      for (let n = 0; n < copies; n += 1) this.#add(event, endpoint.url, options.copy === true || n > 0);
    this.#schedule();
  }

  #add(event: EventRecord, url: string, copy: boolean): void {
    const delivery: DeliveryRecord = {
      id: newId('whd_'),
      eventId: event.id,
      endpoint: url,
      state: this.faults.hold || this.faults.reorderWindow > 1 ? 'held' : 'pending',
      attempts: 0,
      nextAt: Date.now() + this.faults.delayMs,
      lastStatus: null,
      lastError: null,
      copy,
    };
    const deliveries = this.#ledger().state.deliveries;
    deliveries[delivery.id] = delivery;
    if (delivery.state === 'pending') this.#pending.add(delivery.id);
    if (!this.faults.hold && this.faults.reorderWindow > 1) {
      // The stored record, not the literal: changes to it are what the journal sees.
      this.#window.push(deliveries[delivery.id] as DeliveryRecord);
      if (this.#window.length >= this.faults.reorderWindow) this.#flushWindow();
    }
  }

  #flushWindow(): void {
    this.#inOrder(this.#window.reverse(), Date.now() + this.faults.delayMs);
    this.#window = [];
  }

  /** Makes deliveries pending so their first attempts go out one after the other, in the given order. */
  #inOrder(deliveries: DeliveryRecord[], at: number): void {
    deliveries.forEach((delivery, index) => {
      delivery.state = 'pending';
      delivery.nextAt = at;
      delivery.after = deliveries[index - 1]?.id;
      this.#pending.add(delivery.id);
    });
  }

  /** Whether a delivery's turn has come: whatever it waits on has had its first attempt. */
  #ready(delivery: DeliveryRecord): boolean {
    const before = delivery.after ? this.#ledger().state.deliveries[delivery.after] : undefined;
    return !before || (before.attempts > 0 && !this.#inFlight.has(before.id));
  }

  /** Sends an event again as a copy: a late duplicate, on request. */
  resend(eventId: string): void {
    const event = this.#ledger().event(eventId);
    this.enqueue(event, { copy: true });
  }

  /** Releases held deliveries, in the order they were made or newest first; returns how many. */
  release(order: 'created' | 'reverse' = 'created'): number {
    const held = Object.values(this.#ledger().state.deliveries).filter((d) => d.state === 'held');
    if (order === 'reverse') held.reverse();
    this.#inOrder(held, Date.now());
    this.#window = [];
    this.#ledger().store.save();
    this.#schedule();
    return held.length;
  }

  /** Starts sending (and resumes what a previous run left pending). */
  start(): void {
    for (const delivery of Object.values(this.#ledger().state.deliveries))
      if (delivery.state === 'pending') this.#pending.add(delivery.id);
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort.abort();
  }

  #pendingDeliveries(): DeliveryRecord[] {
    const deliveries = this.#ledger().state.deliveries;
    return [...this.#pending].flatMap((id) => {
      const delivery = deliveries[id];
      return delivery?.state === 'pending' ? [delivery] : [];
    });
  }

  #schedule(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    const due = this.#pendingDeliveries()
      .filter((d) => !this.#inFlight.has(d.id) && this.#ready(d))
      .sort((a, b) => a.nextAt - b.nextAt);
    const first = due[0];
    if (!first) return;
    this.#timer = setTimeout(() => this.#pump(), Math.max(0, first.nextAt - Date.now()));
    this.#timer.unref();
  }

  #pump(): void {
    const now = Date.now();
    const due = this.#pendingDeliveries()
      .filter((d) => d.nextAt <= now && !this.#inFlight.has(d.id) && this.#ready(d))
      .sort((a, b) => a.nextAt - b.nextAt);
    for (const delivery of due) void this.#attempt(delivery);
    this.#schedule();
  }

  async #attempt(delivery: DeliveryRecord): Promise<void> {
    const ledger = this.#ledger();
    const endpoint = this.#endpoints.find((e) => e.url === delivery.endpoint);
    const event = ledger.state.events[delivery.eventId];
    if (!endpoint || !event) {
      this.#pending.delete(delivery.id);
      delivery.state = 'failed';
      delivery.lastError = 'unknown endpoint or event';
      return;
    }
    this.#inFlight.add(delivery.id);
    const payload = JSON.stringify(ledger.viewEvent(event), null, 2);
    // Signed at sending, by the wall clock, as each Stripe attempt is: a late delivery still verifies.
    const timestamp = Math.floor(Date.now() / 1000);
    delivery.attempts += 1;
    let ok = false;
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': signPayload(payload, endpoint.secret, timestamp),
        },
        body: payload,
        signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.#retry.timeoutMs)]),
      });
      await response.arrayBuffer().catch(() => undefined);
      delivery.lastStatus = response.status;
      delivery.lastError = null;
      ok = response.status >= 200 && response.status < 300;
    } catch (error) {
      delivery.lastStatus = null;
      delivery.lastError = error instanceof Error ? error.message : String(error);
    } finally {
      this.#inFlight.delete(delivery.id);
    }
    if (this.#stopped) return;
    if (ok || delivery.attempts >= this.#retry.maxAttempts) this.#pending.delete(delivery.id);
    if (ok) {
      delivery.state = 'delivered';
      if (!delivery.copy) event.pendingWebhooks = Math.max(0, event.pendingWebhooks - 1);
    } else if (delivery.attempts >= this.#retry.maxAttempts) {
      delivery.state = 'failed';
    } else {
      const wait = Math.min(this.#retry.baseMs * 2 ** (delivery.attempts - 1), this.#retry.maxMs);
      delivery.nextAt = Date.now() + wait;
    }
    ledger.store.save();
    this.#schedule();
  }
}
