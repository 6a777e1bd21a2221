import type { IncomingMessage, ServerResponse } from 'node:http';
import type Stripe from 'stripe';
import { type ApiFault, parseForm, type StripeApi } from './api.ts';
import { StripeApiError } from './errors.ts';
import type { Ledger } from './ledger.ts';
import { attemptPayment, sweepExpired } from './operations.ts';
import type { DeliveryRecord } from './state.ts';
import { NO_WEBHOOK_FAULTS, type WebhookFaults, type WebhookSender } from './webhooks.ts';

/** What tests and the soak may do to the stand-in beyond Stripe's API (each documented in docs/payments-stand-in.md). */
export class StandInControls {
  readonly #ledger: Ledger;
  readonly #api: StripeApi;
  readonly #sender: WebhookSender;

  constructor(ledger: Ledger, api: StripeApi, sender: WebhookSender) {
    this.#ledger = ledger;
    this.#api = api;
    this.#sender = sender;
  }

  #done<T>(value: T): T {
    this.#ledger.store.save();
    return value;
  }

  /** The guest pays the session with the test card that succeeds. */
  pay(sessionId: string): Stripe.Checkout.Session {
    sweepExpired(this.#ledger);
    return this.#done(this.#ledger.viewSession(attemptPayment(this.#ledger, sessionId, 'success')));
  }

  /** The guest's card is declined; the session stays open. */
  decline(sessionId: string): Stripe.Checkout.Session {
    sweepExpired(this.#ledger);
    return this.#done(this.#ledger.viewSession(attemptPayment(this.#ledger, sessionId, 'decline')));
  }

  /** The stand-in's clock now, in Unix seconds. */
  now(): number {
    return this.#ledger.store.now();
  }

  /** Moves the stand-in's clock forward, then expires whatever sessions that made due. */
  advanceClock(seconds: number): number {
    if (!Number.isInteger(seconds) || seconds < 0)
      throw new RangeError('seconds must be a whole number, 0 or more');
    this.#ledger.state.clockOffsetMs += seconds * 1000;
    sweepExpired(this.#ledger);
    return this.#done(this.now());
  }

  /** Queues a fault for the next `count` API calls (after those already queued). */
  failApi(fault: ApiFault): void {
    if (!['error', 'hang'].includes(fault.mode) || !['before', 'after'].includes(fault.when))
      throw new RangeError('mode is error or hang; when is before or after');
    if (!Number.isInteger(fault.count) || fault.count < 1) throw new RangeError('count must be 1 or more');
    this.#api.faults.push({ ...fault });
  }

  clearApiFaults(): void {
    this.#api.faults.length = 0;
  }

  /** Sets the webhook faults (what is not given is off). */
  setWebhookFaults(faults: Partial<WebhookFaults>): WebhookFaults {
    const next = { ...NO_WEBHOOK_FAULTS, ...faults };
    if (!Number.isInteger(next.delayMs) || next.delayMs < 0)
      throw new RangeError('delayMs must be 0 or more');
    if (!Number.isInteger(next.reorderWindow) || next.reorderWindow < 0)
      throw new RangeError('reorderWindow must be 0 or more');
    this.#sender.faults = next;
    return next;
  }

  /** Sends the held ("late") deliveries, in creation order or newest first. */
  releaseWebhooks(order: 'created' | 'reverse' = 'created'): number {
    return this.#sender.release(order);
  }

  /** Sends an event again, as a copy (a late duplicate). */
  resendEvent(eventId: string): void {
    this.#sender.resend(eventId);
    this.#ledger.store.save();
  }

  /** Every delivery and its state, oldest first. */
  deliveries(): DeliveryRecord[] {
    return Object.values(this.#ledger.state.deliveries).map((d) => ({ ...d }));
  }
}

const CONTROL = /^\/_standin\/(.+)$/;

const json = (response: ServerResponse, status: number, value: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(value, null, 2));
};

const readBody = (request: IncomingMessage, body: string): Record<string, unknown> => {
  if (!body) return {};
  if ((request.headers['content-type'] ?? '').startsWith('application/json')) return JSON.parse(body);
  return parseForm(body);
};

const int = (value: unknown, fallback: number) => (value === undefined ? fallback : Number(value));
const bool = (value: unknown) => value === true || value === 'true';

/** Serves `/_standin/*` (the same secret key as the API); answers false when the path is not one. */
export function handleControl(
  controls: StandInControls,
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
): boolean {
  const path = CONTROL.exec(new URL(request.url ?? '/', 'http://stand-in').pathname)?.[1];
  if (path === undefined) return false;
  const method = request.method ?? 'GET';
  try {
    const input = readBody(request, body);
    const session = /^checkout\/([^/]+)\/(pay|decline)$/.exec(path);
    const resend = /^events\/([^/]+)\/resend$/.exec(path);
    if (method === 'POST' && session?.[1])
      json(response, 200, session[2] === 'pay' ? controls.pay(session[1]) : controls.decline(session[1]));
    else if (method === 'GET' && path === 'clock') json(response, 200, { now: controls.now() });
    else if (method === 'POST' && path === 'clock/advance')
      json(response, 200, { now: controls.advanceClock(int(input.seconds, Number.NaN)) });
    else if (method === 'POST' && path === 'faults/api') {
      controls.failApi({
        mode: input.mode as ApiFault['mode'],
        when: (input.when ?? 'before') as ApiFault['when'],
        count: int(input.count, 1),
      });
      json(response, 200, { ok: true });
    } else if (method === 'POST' && path === 'faults/api/clear') {
      controls.clearApiFaults();
      json(response, 200, { ok: true });
    } else if (method === 'POST' && path === 'faults/webhooks')
      json(
        response,
        200,
        controls.setWebhookFaults({
          duplicate: bool(input.duplicate),
          delayMs: int(input.delay_ms, 0),
          hold: bool(input.hold),
          reorderWindow: int(input.reorder_window, 0),
        }),
      );
    else if (method === 'POST' && path === 'webhooks/release')
      json(response, 200, {
        released: controls.releaseWebhooks(input.order === 'reverse' ? 'reverse' : 'created'),
      });
    else if (method === 'POST' && resend?.[1]) {
      controls.resendEvent(resend[1]);
      json(response, 200, { ok: true });
    } else if (method === 'GET' && path === 'deliveries')
      json(response, 200, { data: controls.deliveries() });
    else
      json(response, 404, {
        error: { type: 'invalid_request_error', message: `No stand-in control ${method} /_standin/${path}` },
      });
  } catch (error) {
    if (error instanceof StripeApiError) json(response, error.status, { error: error.body });
    else if (error instanceof RangeError || error instanceof SyntaxError)
      json(response, 400, { error: { type: 'invalid_request_error', message: error.message } });
    else throw error;
  }
  return true;
}
