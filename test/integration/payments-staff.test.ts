import { describe, expect, it } from 'vitest';
import { putAttemptAction } from '#lib/bookings/payment-records.ts';
import { transact } from '#lib/kernel/storage/transact.ts';
import { get, post, setPaid, unpaid } from '#test/support/payments-staff.ts';
import { checkoutIdOf, settled, startPaymentsWorld, stored } from '#test/support/payments-world.ts';

// Issue 43, item 5: staff and the seed's rule. `set_paid` records a point-of-sale payment; staff capture an
// authorisation and refund what was taken (through the provider, or paid back by hand); `GET booking/{id}`
// lists the payments and the invoice says paid, refunded and due. Against the Stripe stand-in, through the
// real adapter and its signed webhooks. Cancelling and partners: payments-staff-access.test.ts.

const none = await startPaymentsWorld('pay-staff-none', { take: 'none' });
const full = await startPaymentsWorld('pay-staff-full', { take: 'full' });
const manual = await startPaymentsWorld('pay-staff-manual', { take: 'full', capture: 'manual' });
describe('set_paid: a point-of-sale payment of what remains', () => {
  it('records a pos payment of the rest, with paid_total, the event, and nothing more when repeated', async () => {
    const { code, booking_id } = await unpaid(none);
    const paid = await setPaid(none, code);
    expect(paid.status, JSON.stringify(paid.json.request)).toBe(200);
    expect(paid.json.booking).toMatchObject({ status_id: 'PAID', paid_total: '120.00', due: '0.00' });
    const [payment] = paid.json.booking.payments;
    expect(paid.json.booking.payments).toHaveLength(1);
    expect(payment).toMatchObject({
      provider: 'pos',
      kind: 'pos',
      amount: '120.00',
      status: 'captured',
      captured: '120.00',
      refunded: '0.00',
      refunds: [],
    });
    expect(payment.id).toBe(payment.payment_id);
    const record = await stored(none, booking_id);
    const event = record.events.find((one) => one.type === 'payment.created');
    expect(event?.data).toMatchObject({ amount: 12000, provider: 'pos', payment_id: payment.id });
    // Again: nothing is due, so nothing is recorded.
    const again = await setPaid(none, code);
    expect(again.status).toBe(409);
    expect(again.json.request.error.id).toBe('nothing_due');
    const after = await stored(none, booking_id);
    expect(after.attempts).toHaveLength(1);
    expect(after.payments).toHaveLength(1);
    expect(after.booking.paid_total).toBe(12000);
    expect(after.events.filter((one) => one.type === 'payment.created')).toHaveLength(1);
  });

  it('two set_paid at once record one payment', async () => {
    const { code, booking_id } = await unpaid(none);
    const answers = await Promise.all([setPaid(none, code), setPaid(none, code)]);
    // Refused as a refund raced (409) or, read after the other, as more than is left (400).
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses[0]).toBe(200);
    expect([400, 409]).toContain(statuses[1]);
    const record = await stored(none, booking_id);
    expect(record.attempts).toHaveLength(1);
    expect(record.booking.paid_total).toBe(12000);
  });
});

describe('refunds of a point-of-sale payment (paid back by hand)', () => {
  it('refunds part, then the rest; paid_total, the status, the list and the invoice follow', async () => {
    const { code, booking_id } = await unpaid(none);
    const id = (await setPaid(none, code)).json.booking.payments[0].id;
    const part = await post(none, `booking/${code}/payment/${id}/refund`, { amount: '20.00' });
    expect(part.status, JSON.stringify(part.json.request)).toBe(200);
    expect(part.json.payment).toMatchObject({ refunded: '20.00', captured: '120.00' });
    expect(part.json.payment.refunds).toEqual([
      { refund_id: `${id}_m1`, amount: '20.00', method: 'manual', created: expect.any(Number) },
    ]);
    expect(part.json.booking).toMatchObject({ status_id: 'PART', paid_total: '100.00', due: '20.00' });
    const invoice = (await get(none, `booking/${code}/invoice`)).json.booking.invoice;
    expect(invoice).toMatchObject({ paid: '120.00', refunded: '20.00', paid_total: '100.00', due: '20.00' });
    expect(invoice.html).toContain('Refunded');
    const rest = await post(none, `booking/${code}/payment/${id}/refund`, {});
    expect(rest.json.payment).toMatchObject({ refunded: '120.00' });
    expect(rest.json.booking).toMatchObject({ paid_total: '0.00', due: '120.00' });
    const record = await stored(none, booking_id);
    expect(
      record.events.filter((one) => one.type === 'payment.refunded').map((one) => one.data.amount),
    ).toEqual([2000, 10000]);
    expect(record.payments.map((one) => one.amount).sort((a, b) => a - b)).toEqual([-10000, -2000, 12000]);
  });

  it('refuses more than was taken less what was given back, naming the most, and records nothing', async () => {
    const { code, booking_id } = await unpaid(none);
    const id = (await setPaid(none, code)).json.booking.payments[0].id;
    await post(none, `booking/${code}/payment/${id}/refund`, { amount: '100.00' });
    const over = await post(none, `booking/${code}/payment/${id}/refund`, { amount: '20.01' });
    expect(over.status).toBe(400);
    expect(over.json.request.error).toMatchObject({ id: 'validation_error' });
    expect(over.json.request.error.data.amount).toContain('20.00');
    const record = await stored(none, booking_id);
    expect(record.attempts?.[0]).toMatchObject({ refunded: 10000 });
    expect(record.booking.paid_total).toBe(2000);
  });

  it('two refunds of the rest at once give it back once (the same refund, answered twice)', async () => {
    const { code, booking_id } = await unpaid(none);
    const id = (await setPaid(none, code)).json.booking.payments[0].id;
    const answers = await Promise.all([
      post(none, `booking/${code}/payment/${id}/refund`, { amount: '120.00' }),
      post(none, `booking/${code}/payment/${id}/refund`, { amount: '120.00' }),
    ]);
    // Read before either wrote, both are the same refund (200 twice); one read after the other wrote finds
    // nothing left (409 invalid_status), as on a loaded machine. Either way it is given back once.
    expect(answers.map((answer) => answer.status)).toContain(200);
    for (const answer of answers.filter((one) => one.status !== 200)) {
      expect(answer.status).toBe(409);
      expect(answer.json.request.error.id).toBe('invalid_status');
    }
    const record = await stored(none, booking_id);
    expect(record.attempts?.[0]).toMatchObject({ refunded: 12000, refunds: [{ amount: 12000 }] });
    expect(record.booking.paid_total).toBe(0);
    expect(record.events.filter((one) => one.type === 'payment.refunded')).toHaveLength(1);
  });

  it('two refunds of other amounts at once: one is made, the other refused, never more than was taken', async () => {
    const { code, booking_id } = await unpaid(none);
    const id = (await setPaid(none, code)).json.booking.payments[0].id;
    const answers = await Promise.all([
      post(none, `booking/${code}/payment/${id}/refund`, { amount: '100.00' }),
      post(none, `booking/${code}/payment/${id}/refund`, { amount: '120.00' }),
    ]);
    // Refused as a refund raced (409) or, read after the other, as more than is left (400).
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses[0]).toBe(200);
    expect([400, 409]).toContain(statuses[1]);
    const record = await stored(none, booking_id);
    expect(record.attempts?.[0]?.refunds).toHaveLength(1);
    expect(record.booking.paid_total).toBe(12000 - (record.attempts?.[0]?.refunded ?? 0));
  });

  it('refuses a refund through a provider for a payment at the point of sale, and a capture of it', async () => {
    const { code } = await unpaid(none);
    const id = (await setPaid(none, code)).json.booking.payments[0].id;
    const refund = await post(none, `booking/${code}/payment/${id}/refund`, { method: 'provider' });
    expect(refund.status).toBe(409);
    expect(refund.json.request.error.id).toBe('invalid_status');
    const capture = await post(none, `booking/${code}/payment/${id}/capture`, {});
    expect(capture.status).toBe(409);
    expect(capture.json.request.error).toMatchObject({ id: 'invalid_status', data: { status: 'captured' } });
  });

  it('refunds money the booking never counted without moving its paid_total', async () => {
    const { code, booking_id } = await unpaid(none);
    const nowSeconds = Math.floor(Date.now() / 1000);
    // A payment recorded but not kept (a stray one whose giving back failed): applied 0.
    await transact(none.db, [
      putAttemptAction(none.db, {
        payment_id: 'pay_stray1',
        booking_id,
        provider: 'pos',
        kind: 'pos',
        amount: 5000,
        currency: 'CAD',
        capture: 'automatic',
        status: 'captured',
        version: 1,
        deadline: nowSeconds,
        checkout_expires_at: nowSeconds,
        captured: 5000,
        refunded: 0,
        applied: 0,
        flag: 'stray',
        return_url: '',
        cancel_url: '',
        created: nowSeconds,
        updated: nowSeconds,
      }),
    ]);
    const refund = await post(none, `booking/${code}/payment/pay_stray1/refund`, { amount: '20.00' });
    expect(refund.status, JSON.stringify(refund.json.request)).toBe(200);
    expect(refund.json.payment).toMatchObject({ refunded: '20.00' });
    const record = await stored(none, booking_id);
    expect(record.booking.paid_total).toBe(0);
    expect(record.payments).toHaveLength(0);
  });

  it('answers 404 for a payment the booking does not have', async () => {
    const { code } = await unpaid(none);
    const missing = await post(none, `booking/${code}/payment/pay_nope/refund`, {});
    expect(missing.status).toBe(404);
  });
});

describe('refunds through the provider', () => {
  it('refunds part at the provider; the refund is recorded once, however the webhook races it', async () => {
    const created = await unpaid(full);
    full.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(full);
    const listed = (await get(full, `booking/${created.code}`)).json.booking.payments;
    expect(listed).toMatchObject([
      { provider: 'stripe', kind: 'full', status: 'captured', captured: '120.00' },
    ]);
    const id = listed[0].id;
    const refund = await post(full, `booking/${created.code}/payment/${id}/refund`, { amount: '50.00' });
    expect(refund.status, JSON.stringify(refund.json.request)).toBe(200);
    expect(refund.json.payment.refunds).toMatchObject([
      { refund_id: `${id}_r1`, amount: '50.00', method: 'provider' },
    ]);
    expect(refund.json.booking).toMatchObject({ status_id: 'PART', paid_total: '70.00' });
    await settled(full);
    const record = await stored(full, created.booking_id);
    expect(record.attempts?.[0]).toMatchObject({ refunded: 5000, applied: 7000 });
    expect(record.booking.paid_total).toBe(7000);
    const intent = await full.provider.readPayment(record.attempts?.[0]?.provider_payment_id as string);
    expect(intent.refunded).toBe(5000);
  });

  it('with the provider unavailable: 503 with Retry-After, and nothing recorded as refunded', async () => {
    const created = await unpaid(full);
    full.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(full);
    const id = (await get(full, `booking/${created.code}`)).json.booking.payments[0].id;
    full.standIn.controls.failApi({ mode: 'error', when: 'before', count: 5 });
    const refund = await post(full, `booking/${created.code}/payment/${id}/refund`, { amount: '10.00' });
    full.standIn.controls.clearApiFaults();
    expect(refund.status).toBe(503);
    expect(refund.headers['retry-after']).toBeDefined();
    expect(refund.json.request.error.id).toBe('busy');
    const record = await stored(full, created.booking_id);
    expect(record.attempts?.[0]).toMatchObject({ refunded: 0 });
    expect(record.booking.paid_total).toBe(12000);
    // Tried again, it is made once.
    const again = await post(full, `booking/${created.code}/payment/${id}/refund`, { amount: '10.00' });
    expect(again.status).toBe(200);
    expect(again.json.booking.paid_total).toBe('110.00');
  });
});

describe('capture of an authorisation', () => {
  it('captures part, within what was authorised; over it is a 400 naming the most', async () => {
    const created = await unpaid(manual);
    manual.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(manual);
    const id = (await get(manual, `booking/${created.code}`)).json.booking.payments[0].id;
    const over = await post(manual, `booking/${created.code}/payment/${id}/capture`, { amount: '120.01' });
    expect(over.status).toBe(400);
    expect(over.json.request.error.data.amount).toContain('120.00');
    const part = await post(manual, `booking/${created.code}/payment/${id}/capture`, { amount: '100.00' });
    expect(part.status, JSON.stringify(part.json.request)).toBe(200);
    expect(part.json.payment).toMatchObject({ status: 'captured', captured: '100.00' });
    expect(part.json.booking).toMatchObject({ status_id: 'PART', paid_total: '100.00' });
  });

  it('two captures at once capture once; a capture after it is a 409', async () => {
    const created = await unpaid(manual);
    manual.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
    await settled(manual);
    const id = (await get(manual, `booking/${created.code}`)).json.booking.payments[0].id;
    const path = `booking/${created.code}/payment/${id}/capture`;
    const answers = await Promise.all([post(manual, path, {}), post(manual, path, {})]);
    // Both in flight together each find it authorised and capture it under one key: both 200. One that reads
    // after the other recorded the capture finds it captured (409 invalid_status), as on a loaded machine.
    // Either way it is captured once.
    expect(answers.map((answer) => answer.status)).toContain(200);
    for (const answer of answers.filter((one) => one.status !== 200)) {
      expect(answer.status, JSON.stringify(answer.json.request)).toBe(409);
      expect(answer.json.request.error).toMatchObject({ id: 'invalid_status', data: { status: 'captured' } });
    }
    await settled(manual);
    const record = await stored(manual, created.booking_id);
    expect(record.booking).toMatchObject({ status_id: 'PAID', paid_total: 12000 });
    expect(record.payments.reduce((sum, one) => sum + one.amount, 0)).toBe(12000);
    expect(record.events.filter((one) => one.type === 'payment.created')).toHaveLength(1);
    const again = await post(manual, path, {});
    expect(again.status).toBe(409);
    expect(again.json.request.error).toMatchObject({ id: 'invalid_status', data: { status: 'captured' } });
  });

  it('refuses to capture a payment not authorised', async () => {
    const created = await unpaid(manual);
    const id = (await get(manual, `booking/${created.code}`)).json.booking.payments[0].id;
    const capture = await post(manual, `booking/${created.code}/payment/${id}/capture`, {});
    expect(capture.status).toBe(409);
    expect(capture.json.request.error.id).toBe('invalid_status');
    expect((await stored(manual, created.booking_id)).booking.paid_total).toBe(0);
  });
});
