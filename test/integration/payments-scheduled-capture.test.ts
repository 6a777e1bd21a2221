import { describe, expect, it } from 'vitest';
import { createSweeper } from '#functions/sweeper/job.ts';
import { captureScheduledPayments } from '#lib/bookings/index.ts';
import { listCapturesDue } from '#lib/bookings/payment-capture-mark.ts';
import { getConfig } from '#lib/config/index.ts';
import { putSweptUntil } from '#lib/housekeeping/index.ts';
import { addDays, localInstant } from '#lib/kernel/dates.ts';
import type { PaymentProvider } from '#lib/payments/index.ts';
import { get, post } from '#test/support/payments-staff.ts';
import {
  book,
  checkoutIdOf,
  day,
  settled,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';

// Issue 43 item 2: capture `manual` with `capture_days_before_start: N` ("capture N days before the start").
// The sweeper captures each authorised attempt of an active booking once its first date is N days away (local
// midnight in the tenant's zone), or a day before the authorisation would expire at the provider when the start
// is further away than that (docs/decisions.md), through staff's capture path, recorded with
// `reason: scheduled_capture`. Against the Stripe stand-in, through the real adapter and its signed webhooks.

const N = 3;
const DAY_MS = 86_400_000;
const world = await startPaymentsWorld('pay-sched-capture', {
  take: 'full',
  capture: 'manual',
  capture_days_before_start: N,
});

/** The provider, with every capture it is asked for recorded (by the provider's payment id). */
function counted(provider: PaymentProvider) {
  const captures: string[] = [];
  const wrapped = new Proxy(provider, {
    get(target, key) {
      if (key === 'capture')
        return (id: string, input: Parameters<PaymentProvider['capture']>[1]) => {
          captures.push(id);
          return target.capture(id, input);
        };
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { captures, provider: wrapped };
}

/** A booking of three kayaks (120.00) on `date`, authorised by the guest on the stand-in's page. */
async function authorised(date: string) {
  const { created } = await book(world, { date, qty: 3 });
  world.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
  await settled(world);
  const record = await stored(world, created.booking_id);
  const attempt = record.attempts?.[0];
  expect(attempt?.status).toBe('authorised');
  return {
    code: created.code as string,
    bookingId: created.booking_id as number,
    paymentId: attempt?.payment_id as string,
    intent: attempt?.provider_payment_id as string,
    captureAt: attempt?.capture_at as number,
  };
}

/**
 * One sweep at `atMs` (its clock runs on from there). The stand-in's events wait until it is done, so what is
 * recorded is the sweep's own doing (`held` is asked then); they are delivered after, and must change nothing
 * more.
 */
async function sweepAt(
  atMs: number,
  provider: PaymentProvider = world.provider,
  held: () => Promise<void> = async () => {},
) {
  world.standIn.controls.setWebhookFaults({ hold: true });
  const shift = atMs - Date.now();
  await skipSessionMinutes(atMs);
  try {
    const report = await createSweeper({
      db: world.db,
      clock: () => Date.now() + shift,
      payments: async () => provider,
    })();
    await held();
    return report;
  } finally {
    world.standIn.controls.setWebhookFaults({});
    world.standIn.controls.releaseWebhooks();
    await settled(world);
  }
}

/** Where a booking's attempt `paymentId` stands (a cancelled one may be followed by a fresh one). */
const statusOf = async (booking: { bookingId: number; paymentId: string }) =>
  (await stored(world, booking.bookingId)).attempts?.find((one) => one.payment_id === booking.paymentId)
    ?.status;

const created = (record: Awaited<ReturnType<typeof stored>>) =>
  record.events.filter((one) => one.type === 'payment.created');

/** The carts' expiry shards a sweep reads start just before `atMs` (a jump of days would read a day's). */
const skipSessionMinutes = (atMs: number) =>
  putSweptUntil(world.db, Math.floor(atMs / 1000) - 120, Date.now());

/** Whether a booking's payment is still on the sweeper's capture list. */
const marked = async (booking: { bookingId: number }) =>
  (await listCapturesDue(world.db, 4_000_000_000)).some((mark) => mark.booking_id === booking.bookingId);

/** The local midnight (Toronto, the test tenant's zone) of `date`, in Unix seconds. */
const midnight = (date: string) => localInstant(date, 0, 'America/Toronto') / 1000;

/** Holds that a booking was captured in full by the sweeper, once. */
async function expectCapturedOnce(booking: { bookingId: number; intent: string }) {
  const record = await stored(world, booking.bookingId);
  expect(record.booking).toMatchObject({ status_id: 'PAID', paid_total: 12000 });
  expect(record.attempts?.[0]).toMatchObject({ status: 'captured', captured: 12000, applied: 12000 });
  expect(record.payments.reduce((sum, one) => sum + one.amount, 0)).toBe(12000);
  expect(created(record).map((one) => one.data)).toEqual([
    expect.objectContaining({ amount: 12000, status: 'captured', reason: 'scheduled_capture' }),
  ]);
  const changed = record.events.filter((one) => one.type === 'booking.status_changed');
  expect(changed.at(-1)?.data).toMatchObject({ to: 'PAID', reason: 'payment' });
  expect(await world.provider.readPayment(booking.intent)).toMatchObject({
    state: 'captured',
    captured: 12000,
  });
  expect(await marked(booking)).toBe(false);
}

/** Holds that a booking's authorisation was neither captured nor counted. */
async function expectNotCaptured(booking: { bookingId: number }) {
  const record = await stored(world, booking.bookingId);
  expect(record.booking.paid_total).toBe(0);
  expect(created(record)).toEqual([]);
}

/** Holds that a booking's payment left the capture list uncaptured, with its authorisation let go. */
async function expectLetGo(booking: { bookingId: number; paymentId: string; intent: string }) {
  await expectNotCaptured(booking);
  expect(await statusOf(booking)).toBe('cancelled');
  const payment = await world.provider.readPayment(booking.intent);
  expect(payment).toMatchObject({ state: 'cancelled', captured: 0 });
  expect(await marked(booking)).toBe(false);
}

describe('the scheduled capture of an authorisation', () => {
  it('captures it once the first date is N days away (local midnight), not a second before', async () => {
    const date = day(6);
    const booking = await authorised(date);
    expect(booking.captureAt).toBe(midnight(addDays(date, -N)));
    // Staff see when it will be captured, with the booking's payments.
    const listed = await get(world, `booking/${booking.code}`);
    expect(listed.json.booking.payments[0]).toMatchObject({
      status: 'authorised',
      capture_at: booking.captureAt,
    });
    const early = await sweepAt(booking.captureAt * 1000 - 1000);
    expect(early.capturedPayments).toBe(0);
    await expectNotCaptured(booking);
    const report = await sweepAt(booking.captureAt * 1000);
    expect(report.capturedPayments).toBeGreaterThanOrEqual(1);
    await expectCapturedOnce(booking);
    // Its mark went with the capture: a later sweep finds nothing to do for it.
    const later = await sweepAt(booking.captureAt * 1000 + DAY_MS);
    expect(later).toMatchObject({ capturedPayments: 0, captureLeft: 0 });
    await expectCapturedOnce(booking);
  });

  it('captures a day before the authorisation expires when the start is further away than N days and that', async () => {
    const booking = await authorised(day(30));
    const intent = await world.provider.readPayment(booking.intent);
    // Stripe keeps an online card authorisation 7 days: captured 6 days after it was made, not 27 days on.
    expect(booking.captureAt).toBe(intent.created + 6 * 86_400);
    expect(booking.captureAt).toBeLessThan(midnight(addDays(day(30), -N)));
    await sweepAt(booking.captureAt * 1000 - 60_000);
    await expectNotCaptured(booking);
    await sweepAt(booking.captureAt * 1000);
    await expectCapturedOnce(booking);
  });

  it('two sweeps at once capture once', async () => {
    const booking = await authorised(day(5));
    const shift = booking.captureAt * 1000 - Date.now();
    await skipSessionMinutes(booking.captureAt * 1000);
    world.standIn.controls.setWebhookFaults({ hold: true });
    const sweeps = [0, 1].map(() =>
      createSweeper({
        db: world.db,
        clock: () => Date.now() + shift,
        payments: async () => world.provider,
      })(),
    );
    const reports = await Promise.all(sweeps);
    world.standIn.controls.setWebhookFaults({});
    world.standIn.controls.releaseWebhooks();
    await settled(world);
    expect(reports.map((one) => one.captureLeft)).toEqual([0, 0]);
    await expectCapturedOnce(booking);
  });
});

describe('what the scheduled capture leaves alone', () => {
  it('an authorisation staff captured by hand meanwhile: the sweep asks the provider nothing for it', async () => {
    const byHand = await authorised(day(5));
    const control = await authorised(day(5));
    const path = `booking/${byHand.code}/payment/${byHand.paymentId}/capture`;
    const capture = await post(world, path, { amount: '100.00' });
    expect(capture.status, JSON.stringify(capture.json.request)).toBe(200);
    await settled(world);
    const { captures, provider } = counted(world.provider);
    await sweepAt(Math.max(byHand.captureAt, control.captureAt) * 1000, provider);
    expect(captures).toEqual([control.intent]);
    await expectCapturedOnce(control);
    const record = await stored(world, byHand.bookingId);
    expect(record.booking).toMatchObject({ status_id: 'PART', paid_total: 10000 });
    expect(await marked(byHand)).toBe(false);
    expect(created(record)).toHaveLength(1);
    expect(created(record)[0]?.data.reason).not.toBe('scheduled_capture');
  });

  it('a booking staff cancelled: its authorisation is let go, never captured', async () => {
    const cancelled = await authorised(day(5));
    const control = await authorised(day(5));
    const update = await post(world, `booking/${cancelled.code}/update`, { status_id: 'CANCELLED' });
    expect(update.status, JSON.stringify(update.json.request)).toBe(200);
    const { captures, provider } = counted(world.provider);
    await sweepAt(Math.max(cancelled.captureAt, control.captureAt) * 1000, provider);
    expect(captures).toEqual([control.intent]);
    await expectCapturedOnce(control);
    await expectLetGo(cancelled);
  });

  it('an authorisation the provider cancelled: nothing is captured, whether its event came or not', async () => {
    const told = await authorised(day(5));
    const untold = await authorised(day(5));
    const control = await authorised(day(5));
    await world.provider.cancel(told.intent, { paymentId: `${told.paymentId}_dashboard` });
    await settled(world);
    expect(await statusOf(told)).toBe('cancelled');
    // Its event held back: the booking still says authorised when the sweep comes.
    world.standIn.controls.setWebhookFaults({ hold: true });
    await world.provider.cancel(untold.intent, { paymentId: `${untold.paymentId}_dashboard` });
    expect(await statusOf(untold)).toBe('authorised');
    const at = Math.max(told.captureAt, untold.captureAt, control.captureAt) * 1000;
    // Refused at the provider, the sweep reads the payment back and records it, before its event comes.
    await sweepAt(at, world.provider, () => expectLetGo(untold));
    await expectCapturedOnce(control);
    for (const booking of [told, untold]) await expectLetGo(booking);
  });
});

describe('a provider that fails', () => {
  it('answering 500: the mark stays, and the next sweep captures', async () => {
    const booking = await authorised(day(5));
    world.standIn.controls.failApi({ mode: 'error', when: 'before', count: 3 });
    const failed = await sweepAt(booking.captureAt * 1000);
    world.standIn.controls.clearApiFaults();
    expect(failed.captureLeft).toBe(1);
    await expectNotCaptured(booking);
    expect(await statusOf(booking)).toBe('authorised');
    const next = await sweepAt(booking.captureAt * 1000 + 60_000);
    expect(next).toMatchObject({ capturedPayments: 1, captureLeft: 0 });
    await expectCapturedOnce(booking);
  });

  it('hanging: the run ends at its call limit, the mark stays, and the next run captures', async () => {
    const booking = await authorised(day(5));
    const config = await getConfig(world.db);
    const run = () =>
      captureScheduledPayments(world.db, {
        config: config as NonNullable<typeof config>,
        now: booking.captureAt * 1000,
        provider: world.provider,
        endBy: Date.now() + 5000,
        providerCallMs: 500,
      });
    world.standIn.controls.failApi({ mode: 'hang', when: 'before', count: 1 });
    world.standIn.controls.setWebhookFaults({ hold: true });
    const hung = await Promise.race([
      run(),
      new Promise<'cut off'>((resolve) => setTimeout(() => resolve('cut off'), 4000)),
    ]);
    expect(hung).toEqual({ captured: 0, left: 1 });
    await expectNotCaptured(booking);
    world.standIn.controls.clearApiFaults();
    expect(await run()).toEqual({ captured: 1, left: 0 });
    world.standIn.controls.setWebhookFaults({});
    world.standIn.controls.releaseWebhooks();
    await settled(world);
    await expectCapturedOnce(booking);
  });
});
