import { randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import Stripe from 'stripe';
import { getBookingRecord } from '#lib/bookings/repository.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Ymd } from '#lib/kernel/dates.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import type { SynthedFunction } from './bundles.ts';
import {
  addressOf,
  addSlip,
  ask,
  bodyOf,
  type ColdCase,
  create,
  createSubstitutions,
  type RunOnce,
} from './cold-cases.ts';
import { BENCH_PAYMENT } from './payments.ts';
import { startServer, stopServer } from './server.ts';
import { benchTenant } from './tenant.ts';

// The cold cases of issue 43 on a paying copy of the bench tenant (a table of its own, its provider the Stripe
// stand-in, test/bench/stand-in.ts): the create with a deposit due, whose first payment imports the adapter
// and the SDK beside the bookings bundle; and the payments function answering Stripe's webhook for a booking
// just paid, which reads the checkout back and applies it. Their floors replay the provider's calls too.

/** What one run's paid booking is known by: every id its webhook's calls name. */
interface Paid {
  session: string;
  bookingId: number;
  code: string;
  paymentId: string;
  checkout: string;
  intent: string;
  event: string;
  /** The booking's creation and payment deadline (Unix seconds), in the keys of its marks. */
  created: number;
  deadline: number;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/**
 * The payment cases, and how to stop the stand-in they started. `env` is the cold benchmark's (its SLIP keys
 * sign `slip` for this tenant too: the same items); each case's env names the paying table and the keys.
 */
export async function paymentColdCases(options: {
  endpoint: string;
  start: Ymd;
  slip: string;
  env: Record<string, string>;
  functions: SynthedFunction[];
  runOnce: RunOnce;
}): Promise<{ cases: ColdCase[]; stop: () => Promise<void> }> {
  const { slip, runOnce } = options;
  const tableName = `bench-cold-pay-${randomUUID().slice(0, 8)}`;
  const db = createDb({ endpoint: options.endpoint, tableName });
  await ensureTable(db);
  await writeTenant(db, benchTenant(20, options.start, BENCH_PAYMENT), Date.now());
  const keys = {
    secretKey: `sk_test_cold${randomBytes(12).toString('hex')}`,
    webhookSecret: `whsec_cold${randomBytes(12).toString('hex')}`,
  };
  const standIn = await startServer(
    { BENCH_STRIPE_SECRET_KEY: keys.secretKey, BENCH_STRIPE_WEBHOOK_SECRET: keys.webhookSecret },
    'test/bench/stand-in.ts',
  );
  const env = {
    ...options.env,
    TABLE_NAME: tableName,
    STRIPE_SECRET_KEY: keys.secretKey,
    STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
    STRIPE_API_BASE: standIn.base,
  };
  const url = new URL(standIn.base);
  const stripe = new Stripe(keys.secretKey, { host: url.hostname, port: Number(url.port), protocol: 'http' });
  const bundle = (name: string) => {
    const fn = options.functions.find((one) => one.function === name);
    if (!fn) throw new Error(`no bundle for ${name}`);
    return fn;
  };
  const openSession = async (sourceIp: string) => {
    const added = await runOnce(bundle('Session'), addSlip(slip, sourceIp), env);
    if (added.statusCode !== 200)
      throw new Error(`no session to book: ${JSON.stringify(added).slice(0, 300)}`);
    return bodyOf<{ booking: { session: { id: string } } }>(added).booking.session.id;
  };
  const book = async (sourceIp: string) => {
    const session = await openSession(sourceIp);
    const created = await runOnce(bundle('Bookings'), create(session, sourceIp), env);
    const booking = bodyOf<{ booking?: { booking_id: number; code: string; payment_url?: string } }>(
      created,
    ).booking;
    const checkout = /\/c\/pay\/(cs_[A-Za-z0-9_]+)/.exec(booking?.payment_url ?? '')?.[1];
    if (created.statusCode !== 200 || !booking || !checkout)
      throw new Error(`the paying create answered ${JSON.stringify(created).slice(0, 300)}`);
    return { session, booking, checkout };
  };
  // As in coldCases: the customer returns, so no recorded create writes it.
  await book('192.0.2.1');

  // A booking booked and paid (untimed), and Stripe's event of its checkout, signed now.
  const paidOf = new WeakMap<APIGatewayProxyEventV2, Paid>();
  const paidEvent = async (index: number) => {
    const { session, booking, checkout } = await book(addressOf(index));
    const paid = await fetch(`${standIn.base}/_standin/checkout/${checkout}/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.secretKey}` },
    });
    if (paid.status !== 200) throw new Error(`the stand-in did not pay ${checkout}: ${await paid.text()}`);
    await paid.arrayBuffer();
    const events = await stripe.events.list({ type: 'checkout.session.completed', limit: 10 });
    const event = events.data.find((one) => (one.data.object as { id: string }).id === checkout);
    const record = await getBookingRecord(db, booking.booking_id);
    const paymentId = record?.booking.payment?.payment_id;
    const intent = (event?.data.object as { payment_intent?: string } | undefined)?.payment_intent;
    if (!event || !record || !paymentId || !intent) throw new Error(`no event or booking for ${checkout}`);
    const payload = JSON.stringify(event, null, 2);
    const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
      payload,
      secret: keys.webhookSecret,
    });
    // From the guest's address: the booking's client records carry it, and every case substitutes it.
    const request = ask(
      {
        method: 'POST',
        path: 'payment/stripe/webhook',
        body: payload,
        contentType: 'application/json; charset=utf-8',
        headers: { 'stripe-signature': signature },
      },
      addressOf(index),
    );
    paidOf.set(request, {
      session,
      bookingId: booking.booking_id,
      code: booking.code,
      paymentId,
      checkout,
      intent,
      event: event.id,
      created: record.booking.created_date,
      deadline: record.booking.payment?.deadline ?? 0,
    });
    return request;
  };

  const cases: ColdCase[] = [
    {
      function: 'Bookings',
      request: `create, ${BENCH_PAYMENT.deposit.percent} % deposit due (adapter and SDK imported)`,
      env,
      event: async (index) => create(await openSession(addressOf(index)), addressOf(index)),
      // The create's, and the attempt's: a payment id of its own (so the provider opens a checkout of its own
      // under its own key) and a checkout still 31 minutes long when the floor asks it (Stripe's 30 at least).
      substitutions: (recorded, run) => {
        const calls = JSON.stringify(recorded.script.batches);
        const payment = /PAYMENT_ATTEMPT#(pay_[0-9a-f]+)/.exec(calls)?.[1];
        const expires = /expires_at=(\d+)/.exec(calls)?.[1];
        if (!payment || !expires) throw new Error('the recorded create opened no checkout');
        return [
          ...createSubstitutions(recorded, run),
          [payment, `pay_${randomUUID().replaceAll('-', '')}`],
          [`expires_at=${expires}`, `expires_at=${Math.floor(Date.now() / 1000) + 31 * 60}`],
        ];
      },
    },
    {
      function: 'Payments',
      request: 'webhook: checkout.session.completed, applied (adapter and SDK imported)',
      env,
      event: paidEvent,
      // Each floor run applies a booking of its own, paid as the recording's was: every id of the recording's
      // in its place, and the times in the keys of its marks (its creation, its deadline).
      substitutions: ({ event: recordedEvent, script }, run) => {
        const recorded = paidOf.get(recordedEvent);
        const own = paidOf.get(run.event);
        if (!recorded || !own) throw new Error('a webhook run without its booking');
        const calls = JSON.stringify(script.batches);
        const times: [string, string][] = [
          [`${pad(recorded.created, 12)}#`, `${pad(own.created, 12)}#`],
          [`${pad(recorded.deadline, 12)}#`, `${pad(own.deadline, 12)}#`],
        ];
        const marks = calls.match(new RegExp(`\\d{12}#${pad(recorded.bookingId, 10)}`, 'g')) ?? [];
        if (marks.some((mark) => !times.some(([time]) => mark.startsWith(time))))
          throw new Error(`a recorded key names a time of the booking the floor cannot name: ${marks}`);
        return [
          ...times,
          [`#${pad(recorded.bookingId, 10)}`, `#${pad(own.bookingId, 10)}`],
          [recorded.session, own.session],
          [recorded.code, own.code],
          [recorded.paymentId, own.paymentId],
          [recorded.checkout, own.checkout],
          [recorded.intent, own.intent],
          [recorded.event, own.event],
        ];
      },
    },
  ];
  return { cases, stop: () => stopServer(standIn.child) };
}
