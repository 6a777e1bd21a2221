import Stripe from 'stripe';
import { call, type Ledger, type Random } from './traffic.ts';
import type { StandInAddress } from './world.ts';

// The soak's side of the runner's stand-in for Stripe (issue 43, item 9): a guest paying or declined on its
// checkout page (through its pay and decline controls, the page's own two buttons), its faults (webhooks
// delayed, duplicated and reordered; its API answering 500 or hanging for a window), the drain of its
// deliveries, and the read of its objects for the money audit, through Stripe's own SDK.

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));
const CHECKOUT = /\/c\/pay\/([A-Za-z0-9_]+)$/;

/** A control of the stand-in, as a careful client calls it (retried while the runner, its host, restarts). */
async function control(
  ledger: Ledger,
  standIn: StandInAddress,
  options: { route: string; path: string; form?: Record<string, string>; method?: 'GET' | 'POST' },
) {
  const method = options.method ?? 'POST';
  return call(ledger, {
    base: `${standIn.url}/_standin`,
    route: options.route,
    path: options.path,
    method,
    // A GET carries no body at all (fetch refuses even an empty one).
    ...(method === 'POST' ? { form: options.form ?? {} } : {}),
    headers: { authorization: `Bearer ${standIn.secretKey}` },
  });
}

/** What a guest did about a booking's payment. */
export type PaymentChoice = 'paid' | 'declined, then paid' | 'declined' | 'abandoned' | 'no checkout';

/**
 * The guest of a booking that awaits payment: pays at once (60 %), is declined and pays with another card
 * (15 %), is declined and gives up (10 %), or never opens the page (15 %); the last two lapse at the deadline.
 */
export async function settle(
  ledger: Ledger,
  standIn: StandInAddress,
  random: Random,
  paymentUrl: string | undefined,
): Promise<PaymentChoice> {
  const checkout = paymentUrl ? CHECKOUT.exec(paymentUrl)?.[1] : undefined;
  if (!checkout) return 'no checkout';
  const choice = random.next();
  if (choice >= 0.85) return 'abandoned';
  if (choice >= 0.6)
    await control(ledger, standIn, { route: 'standin.decline', path: `checkout/${checkout}/decline` });
  if (choice >= 0.75) return 'declined';
  await control(ledger, standIn, { route: 'standin.pay', path: `checkout/${checkout}/pay` });
  return choice >= 0.6 ? 'declined, then paid' : 'paid';
}

/** Sets the stand-in's webhook faults (what is not given is off). */
export async function webhookFaults(
  ledger: Ledger,
  standIn: StandInAddress,
  faults: { duplicate?: boolean; delay_ms?: number; reorder_window?: number },
): Promise<void> {
  await control(ledger, standIn, {
    route: 'standin.faults',
    path: 'faults/webhooks',
    form: Object.fromEntries(Object.entries(faults).map(([name, value]) => [name, String(value)])),
  });
}

/** Turns the stand-in's API to 500s (before doing anything) or hangs (after doing it) until `apiRecovers`. */
export async function apiFails(
  ledger: Ledger,
  standIn: StandInAddress,
  mode: 'error' | 'hang',
): Promise<void> {
  await control(ledger, standIn, {
    route: 'standin.faults',
    path: 'faults/api',
    // A count no window reaches: the window ends when the faults are cleared.
    form: { mode, when: mode === 'error' ? 'before' : 'after', count: '1000000' },
  });
}

/** Ends an API fault window. */
export async function apiRecovers(ledger: Ledger, standIn: StandInAddress): Promise<void> {
  await control(ledger, standIn, { route: 'standin.faults', path: 'faults/api/clear' });
}

/**
 * Sends what the stand-in holds back (a reordered group not yet full, held deliveries) and waits, up to
 * `patienceMs`, until none of its deliveries is pending or held; answers how many still were.
 */
export async function drainDeliveries(ledger: Ledger, standIn: StandInAddress, patienceMs: number) {
  await webhookFaults(ledger, standIn, {});
  await control(ledger, standIn, { route: 'standin.release', path: 'webhooks/release' });
  // An event with a delivery the stand-in gave up on (its retries last about a minute, through a DynamoDB
  // outage) is sent again, as Stripe's own retries, which last three days, would: even when a copy of it was
  // answered, since that answer may have been `duplicate` while the first delivery was still failing.
  const listed = await control(ledger, standIn, {
    route: 'standin.deliveries',
    path: 'deliveries',
    method: 'GET',
  });
  const all = (listed.json?.data ?? []) as { eventId: string; state: string }[];
  const given = new Set(all.filter((d) => d.state === 'failed').map((d) => d.eventId));
  for (const eventId of given)
    await control(ledger, standIn, { route: 'standin.resend', path: `events/${eventId}/resend` });
  const until = Date.now() + patienceMs;
  for (;;) {
    const answer = await control(ledger, standIn, {
      route: 'standin.deliveries',
      path: 'deliveries',
      method: 'GET',
    });
    const deliveries = (answer.json?.data ?? []) as { state: string }[];
    const waiting = deliveries.filter((d) => d.state === 'pending' || d.state === 'held').length;
    if (waiting === 0 || Date.now() > until) return waiting;
    await sleep(1_000);
  }
}

/** The provider's side of the money: every PaymentIntent (with its charge), Checkout Session and Refund. */
export interface ProviderMoney {
  intents: Stripe.PaymentIntent[];
  checkouts: Stripe.Checkout.Session[];
  /** Each names our refund id in its metadata (`refund_id`: `<payment_id>_<suffix>`). */
  refunds: Stripe.Refund[];
}

/** What a PaymentIntent kept: captured less what its charge gave back. */
export function keptAtProvider(intent: Stripe.PaymentIntent): number {
  if (intent.status !== 'succeeded') return 0;
  const charge = intent.latest_charge as Stripe.Charge | null;
  return intent.amount_received - (charge?.amount_refunded ?? 0);
}

/**
 * Reads every PaymentIntent, Checkout Session and Refund the stand-in has, through Stripe's SDK, as reconcile
 * would.
 */
export async function readProviderMoney(standIn: StandInAddress): Promise<ProviderMoney> {
  const base = new URL(standIn.url);
  const stripe = new Stripe(standIn.secretKey, {
    host: base.hostname,
    port: Number(base.port),
    protocol: 'http',
    maxNetworkRetries: 2,
  });
  // The SDK walks at most 10,000 of a list into an array: far more than any soak makes.
  const all = { limit: 10_000 };
  return {
    intents: await stripe.paymentIntents
      .list({ limit: 100, expand: ['data.latest_charge'] })
      .autoPagingToArray(all),
    checkouts: await stripe.checkout.sessions.list({ limit: 100 }).autoPagingToArray(all),
    refunds: await stripe.refunds.list({ limit: 100 }).autoPagingToArray(all),
  };
}
