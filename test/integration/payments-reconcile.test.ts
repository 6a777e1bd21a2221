import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { changeStatus } from '#lib/bookings/index.ts';
import { serviceContext } from '#lib/bookings/payment-change.ts';
import { getConfig, type StoredConfig } from '#lib/config/index.ts';
import { runPaymentsReconcile } from '#lib/housekeeping/index.ts';
import { bookingKey, bookingPaymentAttemptKey } from '#lib/kernel/storage/keys.ts';
import { book, checkoutIdOf, settled, startPaymentsWorld, stored } from '#test/support/payments-world.ts';
import { sdkFor } from '#test/support/stripe-world.ts';

// Issue 43 item 8: `npm run reconcile` audits money as it audits stock, against the table and, with
// --provider, against the provider's own list of payments (here the Stripe stand-in, through the adapter).

const world = await startPaymentsWorld('pay-reconcile', { take: 'full' });
const stripe = sdkFor(world.standIn);
const since = Math.floor(Date.now() / 1000) - 60;

/** A booking paid in full, with its payment applied through the webhook. */
async function paid() {
  const { created } = await book(world);
  world.standIn.controls.pay(checkoutIdOf(created.payment_url));
  await settled(world);
  const record = await stored(world, created.booking_id);
  expect(record.booking).toMatchObject({ status_id: 'PAID', paid_total: 4000 });
  return record;
}

/** A payment taken at the provider for `tenant` that names a booking we never made; its events are held. */
async function paidElsewhere(tenant: string) {
  const metadata = {
    tenant_id: tenant,
    booking_id: '777777',
    booking_code: 'PAY-NONE',
    payment_id: `pay_${tenant}`,
  };
  const session = await stripe.checkout.sessions.create({
    mode: 'payment',
    currency: 'cad',
    line_items: [
      { price_data: { currency: 'cad', product_data: { name: 'Kayak' }, unit_amount: 2500 }, quantity: 1 },
    ],
    metadata,
    payment_intent_data: { metadata },
    expires_at: world.standIn.controls.now() + 3600,
    success_url: 'https://shop.example.com/done',
    cancel_url: 'https://shop.example.com/',
  });
  world.standIn.controls.setWebhookFaults({ hold: true });
  world.standIn.controls.pay(session.id);
  world.standIn.controls.setWebhookFaults({});
  return String((await stripe.checkout.sessions.retrieve(session.id)).payment_intent);
}

const update = (key: Record<string, string>, expression: string, values: Record<string, unknown>) =>
  world.db.documents.send(
    new UpdateCommand({
      TableName: world.db.tableName,
      Key: key,
      UpdateExpression: expression,
      ExpressionAttributeValues: values,
    }),
  );

/**
 * `npm run reconcile` against this world's table and stand-in: its exit code and lines. Not a synchronous
 * spawn: the stand-in answers from this very process.
 */
async function cli(...args: string[]) {
  const run = promisify(execFile);
  const options = {
    encoding: 'utf8' as const,
    env: {
      ...process.env,
      TABLE_NAME: world.db.tableName,
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      STRIPE_SECRET_KEY: world.standIn.secretKey,
      STRIPE_WEBHOOK_SECRET: world.standIn.webhookSecret,
      STRIPE_API_BASE: world.standIn.url,
    },
  };
  const out = await run(
    process.execPath,
    ['node_modules/tsx/dist/cli.mjs', 'infra/cli/reconcile.ts', ...args],
    options,
  ).then(
    (done) => ({ ...done, code: 0 }),
    (error: { stdout: string; stderr: string; code: number }) => error,
  );
  return { code: out.code, lines: out.stdout.trim().split('\n'), stderr: out.stderr };
}

describe('reconcile of money', () => {
  it('finds nothing when every payment is its booking’s, at the provider too', async () => {
    await paid();
    await book(world);
    const report = await runPaymentsReconcile(world.db, { provider: world.provider, since });
    expect(report.discrepancies).toEqual([]);
    expect(report.providerPayments).toBeGreaterThanOrEqual(1);
  });

  it('names a provider payment of ours with no booking, and leaves another tenant’s alone', async () => {
    const ours = await paidElsewhere('test');
    const theirs = await paidElsewhere('other');
    const report = await runPaymentsReconcile(world.db, { provider: world.provider, since });
    expect(report.discrepancies).toEqual([
      { kind: 'provider_unknown', providerPaymentId: ours, captured: 2500, refunded: 0, bookingId: '777777' },
    ]);
    expect(JSON.stringify(report)).not.toContain(theirs);
    // Refunded at the provider, it is money no longer astray... but still a payment with no booking.
    await stripe.refunds.create({ payment_intent: ours });
    expect((await runPaymentsReconcile(world.db, { provider: world.provider, since })).discrepancies).toEqual(
      [expect.objectContaining({ kind: 'provider_unknown', refunded: 2500 })],
    );
  });

  it('names a paid_total that drifted, a refund the table missed and a cancelled booking keeping money', async () => {
    const drifted = await paid();
    await update(bookingKey(drifted.booking.booking_id), 'SET paid_total = :p', { ':p': 4100 });
    const refunded = await paid();
    const intent = refunded.attempts?.[0]?.provider_payment_id as string;
    world.standIn.controls.setWebhookFaults({ hold: true });
    await stripe.refunds.create({ payment_intent: intent, amount: 1000 });
    world.standIn.controls.setWebhookFaults({});
    const cancelled = await paid();
    await update(bookingKey(cancelled.booking.booking_id), 'SET status_id = :s', { ':s': 'CANCELLED' });
    const report = await runPaymentsReconcile(world.db, { provider: world.provider, since });
    const found = report.discrepancies.filter((one) => one.kind !== 'provider_unknown');
    expect(found).toEqual([
      {
        kind: 'kept_inactive',
        booking: cancelled.booking.code,
        paymentId: cancelled.attempts?.[0]?.payment_id,
        status: 'CANCELLED',
        held: 4000,
      },
      { kind: 'paid_total', booking: drifted.booking.code, paidTotal: 4100, expected: 4000 },
      expect.objectContaining({
        kind: 'provider_differs',
        booking: refunded.booking.code,
        refunded: 0,
        providerRefunded: 1000,
      }),
    ]);
    // Staff keeping the money of the booking they cancelled (a cancellation fee) is their decision to make.
    const attempt = cancelled.attempts?.[0];
    await update(
      bookingPaymentAttemptKey(cancelled.booking.booking_id, attempt?.payment_id as string),
      'SET kept = :k, version = version + :one',
      { ':k': { account_id: 1, at: since }, ':one': 1 },
    );
    const after = await runPaymentsReconcile(world.db, { provider: world.provider, since });
    const left = after.discrepancies.filter((one) => one.kind !== 'provider_unknown').map((one) => one.kind);
    expect(left).toEqual(['paid_total', 'provider_differs']);
  });

  it('names each discrepancy on a line of npm run reconcile -- --provider and exits 1; --fix moves no money', async () => {
    const run = await cli('--provider', '--fix');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(
      run.lines.filter((line) => /paid_total 4100 but its payments add up to 4000/.test(line)),
    ).toHaveLength(1);
    expect(
      run.lines.filter((line) => /has no booking here \(names booking 777777\)/.test(line)),
    ).toHaveLength(1);
    expect(
      run.lines.filter((line) => /the provider says captured 4000 refunded 1000/.test(line)),
    ).toHaveLength(1);
    expect(run.lines).toContain(
      'money is reported, never fixed: refunds and captures are for staff to decide',
    );
    expect((await cli('--provider')).lines.filter((line) => /paid_total 4100/.test(line))).toHaveLength(1);
  });
});

describe('money given back on a booking cancelled with nobody keeping its money', () => {
  it('is counted off its paid_total when a refund at the provider makes the service give back the rest', async () => {
    // Cancelled by the service's own caller (account 0), which never keeps money (staff do: their cancel
    // marks the attempt `kept`, payments-staff-access.test.ts).
    const { booking, attempts } = await paid();
    const config = await getConfig(world.db);
    await changeStatus(serviceContext({ db: world.db, config: config as StoredConfig, now: Date.now() }), {
      reference: String(booking.booking_id),
      statusId: 'CANCELLED',
      notify: false,
    });
    // Part of it refunded in the provider's dashboard: the cancelled booking gives back the rest at once.
    await stripe.refunds.create({
      payment_intent: attempts?.[0]?.provider_payment_id as string,
      amount: 1000,
    });
    await settled(world);
    const after = await stored(world, booking.booking_id);
    expect(after.attempts?.[0]).toMatchObject({ captured: 4000, refunded: 4000, applied: 0 });
    expect(after.booking).toMatchObject({ status_id: 'CANCELLED', paid_total: 0 });
    const report = await runPaymentsReconcile(world.db);
    expect(report.discrepancies.filter((one) => 'booking' in one && one.booking === booking.code)).toEqual(
      [],
    );
  });
});
