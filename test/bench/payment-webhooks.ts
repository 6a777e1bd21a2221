import Stripe from 'stripe';
import {
  type Created,
  createBooking,
  drive,
  measuredRun,
  openSessions,
  type PaymentRow,
  type PaymentsRunner,
} from './payment-load.ts';
import type { BenchServer } from './server.ts';
import type { ScenarioUsage } from './usage.ts';

// The provider's webhook route under load (issue 43): the stand-in's own events, signed as Stripe signs them,
// posted to POST payment/stripe/webhook, each read back from the stand-in by the service.

/** A signed delivery of one of the stand-in's events, as Stripe posts it. */
async function deliver(base: string, event: Stripe.Event, secret: string) {
  // Stripe posts pretty JSON and signs each attempt when it makes it: the signing is the provider's, untimed.
  const payload = JSON.stringify(event, null, 2);
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret });
  const started = performance.now();
  const answer = await fetch(`${base}/payment/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
    body: payload,
  });
  const text = await answer.text();
  const ms = performance.now() - started;
  const outcome =
    answer.status === 200 ? ((JSON.parse(text) as { outcome?: string }).outcome ?? '?') : `${answer.status}`;
  return { ms, outcome };
}

/**
 * What a run of duplicate deliveries did beyond what a duplicate may cost, or undefined: each delivery one
 * refused conditional put of its claim and one consistent read of the claim (which tells a handled event from
 * one another handler holds: a 503, issue 43's lease), no other call, no write, nothing asked of the provider.
 */
export function duplicateCostProblem(
  usage: ScenarioUsage,
  providerCallsPerRequest: number,
): string | undefined {
  const { requests, callsByOperation } = usage;
  const allowed =
    usage.calls === 2 * requests &&
    callsByOperation.PutItem === requests &&
    callsByOperation.GetItem === requests &&
    usage.failedCalls === requests &&
    providerCallsPerRequest === 0;
  return allowed
    ? undefined
    : `${requests} duplicates cost ${JSON.stringify(callsByOperation)} (${usage.failedCalls} failed) and ${providerCallsPerRequest} provider calls per delivery`;
}

/**
 * The webhook rows: enough paid bookings for every row (the deposit row's, topped up), each paid at the
 * stand-in (its test card); then their `checkout.session.completed` events, each the first of its booking
 * (applied); their `payment_intent.succeeded`, read back and found already applied (unchanged); and the first
 * events again (duplicates), each at each concurrency.
 */
export async function measureWebhooks(options: {
  runner: PaymentsRunner;
  standIn: BenchServer;
  keys: { secretKey: string; webhookSecret: string };
  created: Created[];
  slip: string;
  size: number;
  events: number;
  concurrency: number[];
  checks: string[];
  dynamoPid?: number;
  say: (line: string) => void;
}): Promise<PaymentRow[]> {
  const { runner, standIn, size, say } = options;
  const base = runner.server.base;
  const needed = options.events * options.concurrency.length;
  const checkouts = options.created.flatMap((one) => (one.checkoutId ? [one.checkoutId] : []));
  if (checkouts.length < needed) {
    const sessions = await openSessions(base, options.slip, needed - checkouts.length, 8);
    await drive(sessions, 8, async (session) => {
      const done = await createBooking(base, session);
      if (done.created?.checkoutId) checkouts.push(done.created.checkoutId);
      return done;
    });
  }
  if (checkouts.length < needed) throw new Error(`only ${checkouts.length} checkouts for ${needed} events`);
  const paid = checkouts.slice(0, needed);
  await drive(paid, 8, async (checkout) => {
    const answer = await fetch(`${standIn.base}/_standin/checkout/${checkout}/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.keys.secretKey}` },
    });
    if (answer.status !== 200)
      throw new Error(`the stand-in did not pay ${checkout}: ${await answer.text()}`);
    await answer.arrayBuffer();
    return { ms: 0, ok: true };
  });
  // The stand-in's own events, read through Stripe's API as any client would.
  const url = new URL(standIn.base);
  const stripe = new Stripe(options.keys.secretKey, {
    host: url.hostname,
    port: Number(url.port),
    protocol: 'http',
  });
  const eventsOf = async (type: 'checkout.session.completed' | 'payment_intent.succeeded') =>
    stripe.events.list({ type, limit: 100 }).autoPagingToArray({ limit: 10_000 });
  const wanted = new Set(paid);
  const completed = (await eventsOf('checkout.session.completed')).filter((event) =>
    wanted.has((event.data.object as { id: string }).id),
  );
  const intents = new Set(
    completed.map((event) => String((event.data.object as { payment_intent: unknown }).payment_intent)),
  );
  const succeeded = (await eventsOf('payment_intent.succeeded')).filter((event) =>
    intents.has((event.data.object as { id: string }).id),
  );
  if (completed.length < needed || succeeded.length < needed)
    throw new Error(`the stand-in has ${completed.length} and ${succeeded.length} events for ${needed}`);
  const rows: PaymentRow[] = [];
  const kinds = [
    { scenario: 'webhook: checkout.session.completed, applied', events: completed, expect: 'applied' },
    {
      scenario: 'webhook: payment_intent.succeeded, already applied',
      events: succeeded,
      expect: 'unchanged',
    },
    { scenario: 'webhook: a duplicate delivery', events: completed, expect: 'duplicate' },
  ];
  for (const kind of kinds) {
    for (const [index, concurrency] of options.concurrency.entries()) {
      const events = kind.events.slice(index * options.events, (index + 1) * options.events);
      const figures = await measuredRun(runner, { ...options, standIn }, () =>
        drive(events, concurrency, async (event) => {
          const done = await deliver(base, event, options.keys.webhookSecret);
          return { ms: done.ms, ok: done.outcome === kind.expect, outcome: done.outcome };
        }),
      );
      const row: PaymentRow = { scenario: kind.scenario, items: size, concurrency, ...figures };
      rows.push(row);
      say(
        `  ${size} items, c=${concurrency}: ${kind.scenario}: ${row.rps} events/s, p95 ${row.payment.p95} ms`,
      );
      const problem =
        kind.expect === 'duplicate'
          ? duplicateCostProblem(row.usage, row.payment.providerCallsPerRequest)
          : undefined;
      if (problem) options.checks.push(`${size} items, c=${concurrency}: ${problem}`);
    }
  }
  return rows;
}
