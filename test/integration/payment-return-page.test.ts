import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { resolveGroup } from '#infra/local/gateway.ts';
import { addDays } from '#lib/kernel/dates.ts';
import { invoke, makeEvent, staffBasic, testContext } from '#test/support/events.ts';
import {
  book,
  checkoutIdOf,
  day,
  lapse,
  settled,
  startPaymentsWorld,
  stored,
} from '#test/support/payments-world.ts';
import { sdkFor } from '#test/support/stripe-world.ts';

// Issue 43, item 7: the page a guest comes back to from paying, `/book?booking=<code>&return_key=<key>`. It
// says what happened from the booking as stored (never from the address), restates the booking, and offers
// the payment again while it can be made; to anyone without the key it shows nothing, the same way for a
// booking that does not exist.

const world = await startPaymentsWorld(
  'pay-return',
  { take: 'deposit', deposit: { percent: 30 }, balance_due_days_before_start: 7 },
  { cors_origins: ['https://shop.example.com'] },
);
const stripe = sdkFor(world.standIn);

/** A GET of the booking page with a query, as API Gateway hands it to the meta function. */
async function openPage(query: Record<string, string>) {
  const base = makeEvent({ path: 'ping', method: 'GET', headers: {} });
  const { routeKey } = resolveGroup('GET', '/book');
  const event = {
    ...base,
    rawPath: '/book',
    rawQueryString: new URLSearchParams(query).toString(),
    queryStringParameters: query,
    routeKey,
    requestContext: {
      ...base.requestContext,
      routeKey,
      http: { ...base.requestContext.http, path: '/book' },
    },
  } as APIGatewayProxyEventV2;
  const result = await world.handlers.meta(event, testContext());
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const html = result.body ?? '';
  // The words as read: tags out, spaces (and Intl's narrow ones) collapsed.
  const text = html
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/[\s\u00a0\u202f]+/g, ' ');
  return { status: result.statusCode ?? 200, headers, html, text };
}

/** A booking of two kayaks, and the return addresses its checkout was given (as the provider has them). */
async function booked(date = day(30)) {
  const { created } = await book(world, { date, qty: 2 });
  const checkout = await stripe.checkout.sessions.retrieve(checkoutIdOf(created.payment_url));
  const cancel = new URL(checkout.cancel_url ?? '');
  const success = new URL((checkout.success_url ?? '').replace('{CHECKOUT_SESSION_ID}', checkout.id));
  const key = cancel.searchParams.get('return_key') ?? '';
  return { created, checkout, key, date, success: Object.fromEntries(success.searchParams) };
}

const headline = (html: string) => /<h1 id="outcome-title">([^<]*)<\/h1>/.exec(html)?.[1];

const statusOf = async (bookingId: number) => (await stored(world, bookingId)).booking.status_id;

describe('GET company of a tenant that takes a deposit', () => {
  it('says how: the deposit, how long a booking waits for it, the capture and when the rest is due', async () => {
    const { json } = await invoke(world.handlers.meta, { path: 'company' });
    expect(json.company.payment).toEqual({
      take: 'deposit',
      deposit_percent: 30,
      pay_within_minutes: 30,
      capture: 'automatic',
      balance_due_days_before_start: 7,
    });
  });
});

describe('the page a guest returns to from paying', () => {
  it('unpaid: says so from the booking as stored, on the success address too, restates it, and offers to pay', async () => {
    const { created, key, success } = await booked();
    for (const query of [{ booking: created.code, return_key: key, payment: 'cancelled' }, success]) {
      const page = await openPage(query);
      expect(page.status).toBe(200);
      expect(headline(page.html)).toBe('Not paid yet');
      expect(page.text).toContain('We have not received a payment for this booking.');
      expect(page.text).toMatch(/held for you until \w+ \d+, \d{4} at \d+:\d\d [ap]\.m\. E[DS]T/);
      // The booking restated: the item, its dates and length, the party, the amounts.
      expect(page.text).toContain(`Booking ${created.code}`);
      expect(page.text).toMatch(/ Kayak \w{3} \d{1,2}, \d{4} · 1 day Quantity: 2 \$80\.00 /);
      expect(page.text).toContain('Total $80.00 Paid $0.00 Still to pay $80.00');
      const self = `/book?booking=${created.code}&#38;return_key=${key}`;
      expect(page.html).toContain(`<a class="button primary" href="${self}&#38;pay=1">Pay $24.00 now</a>`);
      expect(page.html).toContain(`<a class="button" href="${self}">Check again</a>`);
      // A page about one booking: never cached, its address (with the key) never sent on as a referrer.
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.html).not.toContain('<booking-widget');
    }
    // Coming back changed nothing: only the provider's word does.
    expect(await statusOf(created.booking_id)).toBe('PEND');
    const pay = await openPage({ booking: created.code, return_key: key, pay: '1' });
    expect(pay.status).toBe(303);
    expect(pay.headers.location).toBe(created.payment_url);
  });

  it('paid: confirmed, with what was received and when the rest is due; its payment link leads back', async () => {
    const { created, key, date } = await booked();
    world.standIn.controls.pay(checkoutIdOf(created.payment_url));
    await settled(world);
    const page = await openPage({ booking: created.code, return_key: key });
    expect(headline(page.html)).toBe('Booking confirmed');
    const due = new Intl.DateTimeFormat('en-CA', { dateStyle: 'long', timeZone: 'UTC' }).format(
      Date.parse(`${addDays(date, -7).replace(/(\d{4})(\d\d)(\d\d)/, '$1-$2-$3')}T12:00:00Z`),
    );
    expect(page.text).toContain(`We have received $24.00. The rest, $56.00, is due by ${due}.`);
    expect(page.text).toContain('Total $80.00 Paid $24.00 Still to pay $56.00');
    expect(page.html).not.toContain('pay=1');
    // Issue 44: the confirmation links to the guest's page of the booking, as the create's manage_url does.
    const manage = new URL(created.manage_url);
    expect(page.html).toContain(
      `<a href="${`${manage.pathname}${manage.search}`.replaceAll('&', '&#38;')}">Manage your booking</a>`,
    );
    const pay = await openPage({ booking: created.code, return_key: key, pay: '1' });
    expect(pay.headers.location).toBe(`/book?booking=${created.code}&return_key=${key}`);
  });

  it('declined: says nothing was charged and offers to try again, which leads to the same open checkout', async () => {
    const { created, key } = await booked();
    world.standIn.controls.decline(checkoutIdOf(created.payment_url));
    await settled(world);
    const page = await openPage({ booking: created.code, return_key: key, payment: 'cancelled' });
    expect(headline(page.html)).toBe('Your payment was declined');
    expect(page.text).toContain('Nothing was charged.');
    expect(page.html).toContain('pay=1">Try again</a>');
    // A second try may be on its way: the page can be read again.
    expect(page.html).toContain('">Check again</a>');
    const pay = await openPage({ booking: created.code, return_key: key, pay: '1' });
    expect(pay.headers.location).toBe(created.payment_url);
  });

  it('its checkout closed early at the provider: the page offers the new checkout opened in its place', async () => {
    const { created, key } = await booked();
    await stripe.checkout.sessions.expire(checkoutIdOf(created.payment_url));
    await settled(world);
    const record = await stored(world, created.booking_id);
    const fresh = record.attempts?.find((one) => one.payment_id === record.booking.payment?.payment_id);
    expect(fresh?.checkout_url).toBeDefined();
    expect(fresh?.checkout_url).not.toBe(created.payment_url);
    const page = await openPage({ booking: created.code, return_key: key });
    expect(headline(page.html)).toBe('Not paid yet');
    expect(page.html).toContain('pay=1">Pay $24.00 now</a>');
    const pay = await openPage({ booking: created.code, return_key: key, pay: '1' });
    expect(pay.headers.location).toBe(fresh?.checkout_url);
    // Paid there, the page says so.
    world.standIn.controls.pay(checkoutIdOf(fresh?.checkout_url as string));
    await settled(world);
    expect(headline((await openPage({ booking: created.code, return_key: key })).html)).toBe(
      'Booking confirmed',
    );
  });

  it('lapsed: says the booking was released unpaid, and offers to book again, not to pay', async () => {
    const { created, key } = await booked();
    await lapse(world);
    expect(await statusOf(created.booking_id)).toBe('VOID');
    const page = await openPage({ booking: created.code, return_key: key });
    expect(headline(page.html)).toBe('Booking released: not paid in time');
    expect(page.text).toContain('so it was released. Nothing was charged.');
    expect(page.html).toContain('<a class="button primary" href="/book">Book again</a>');
    expect(page.text).not.toContain('Still to pay');
    const pay = await openPage({ booking: created.code, return_key: key, pay: '1' });
    expect(pay.headers.location).toBe(`/book?booking=${created.code}&return_key=${key}`);
  });

  it('past its deadline but not yet released: the time to pay has run out, and no payment is offered', async () => {
    const { created, key } = await booked();
    const deadline = (await stored(world, created.booking_id)).booking.payment?.deadline ?? 0;
    const ahead = (deadline + 1) * 1000 - Date.now();
    world.shift(ahead);
    try {
      const page = await openPage({ booking: created.code, return_key: key });
      expect(headline(page.html)).toBe('The time to pay has run out');
      expect(page.html).not.toContain('pay=1');
      const pay = await openPage({ booking: created.code, return_key: key, pay: '1' });
      expect(pay.headers.location).toBe(`/book?booking=${created.code}&return_key=${key}`);
    } finally {
      world.shift(-ahead);
    }
  });

  it('cancelled by staff: says so', async () => {
    const { created, key } = await booked();
    const authorization = await staffBasic(world.db);
    const cancelled = await invoke(world.handlers.bookings, {
      method: 'POST',
      path: `booking/${created.code}/update`,
      body: 'status_id=CANCELLED',
      contentType: 'application/x-www-form-urlencoded',
      headers: { authorization },
    });
    expect(cancelled.status).toBe(200);
    const page = await openPage({ booking: created.code, return_key: key });
    expect(headline(page.html)).toBe('Booking cancelled');
  });

  it('shows nothing without the booking’s key, the same for a booking that does not exist (404)', async () => {
    const { created, key } = await booked();
    const other = await booked();
    const queries: Record<string, string>[] = [
      { booking: created.code },
      { booking: created.code, return_key: '' },
      { booking: created.code, return_key: other.key },
      { booking: created.code, return_key: key.toUpperCase() },
      { booking: 'PAY-ZZZZZZ', return_key: key },
      { booking: '<script>', return_key: key },
      { booking: created.code, return_key: other.key, pay: '1' },
    ];
    const answers = await Promise.all(queries.map(openPage));
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404, 404, 404]);
    expect(new Set(answers.map((answer) => answer.html)).size).toBe(1);
    expect(headline(answers[0]?.html ?? '')).toBe('This link shows no booking');
    expect(answers[0]?.text).not.toContain('Kayak');
  });
});
