import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { createDb } from '#lib/kernel/storage/database.ts';
import { paymentDueKey } from '#lib/kernel/storage/keys.ts';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { audit, axeViolations } from '#test/support/accessibility.ts';
import { type Guest, screenshot } from '#test/support/chromium.ts';
import { measureOverflow } from '#test/support/page-helpers.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import { lastSession } from '#test/support/widget-checks.ts';
import {
  cartLine,
  formatMoney,
  fromToday,
  normalize,
  resultItem,
  STEP_TIMEOUT,
  textOf,
} from '#test/support/widget-page.ts';
import { staffGet } from '#test/support/widget-service.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 43, item 7: the guest's side of payment, in Chromium against `npm start` and its local stand-in for
// Stripe. The widget on `/book` says before the guest confirms what is paid now and what later, sends the
// guest to pay, and the page the guest comes back to says what happened from the booking as stored (paid,
// not paid yet, declined with a try again that works, released) and restates the booking; axe finds nothing
// at 375 and 1280 px, and on a phone nothing is left empty under the confirmation. One service and one
// browser for the file. The demo tenant with a $100.00 deposit (less than that is paid in full), the rest due
// 14 days before the stay.
const tenant = makeWidgetTenant((raw) => {
  raw.settings.payment = {
    take: 'deposit',
    deposit: { amount: 10_000 },
    balance_due_days_before_start: 14,
  };
});
const money = (amount: string | number) => formatMoney(amount, tenant.locale.id, tenant.locale.currency);
// The shell's Stripe keys, if any, are not this test's: `npm start` then runs the stand-in.
const suite = setUpWidgetSuite({
  tenant,
  name: 'payment',
  env: { STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '', STRIPE_API_BASE: '' },
});

/** The address of the stand-in `npm start` runs, as it printed it. */
const standInUrl = () => /local stand-in for Stripe at (\S+)/.exec(suite.service.output())?.[1] ?? '';

/**
 * The stand-in's key, as it keeps it in DATA_DIR (docs/payments-stand-in.md, "State"): its snapshot, then
 * its journal's lines, after a request that makes it save what it holds.
 */
async function standInKey(): Promise<string> {
  await fetch(`${standInUrl()}/c/pay/cs_test_none`);
  const file = join(suite.service.dataDir, 'stripe-stand-in.json');
  const texts = [file, `${file}.journal`].flatMap((path) =>
    existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [],
  );
  return texts.reduce((key, text) => {
    const record = JSON.parse(text);
    return record.secretKey ?? record.meta?.secretKey ?? key;
  }, '');
}

/** A call to the stand-in's controls (`/_standin/…`) with its key. */
async function standInCall(path: string, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${standInUrl()}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await standInKey()}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, `${path} on the stand-in`).toBeLessThan(300);
}

/** A guest on the booking page, opened on a deep link (the stand-in's page allowed too). */
const openBook = (width: number, link: string): Promise<Guest> =>
  suite.open(width, { url: `${suite.origin}/book?${link}`, allowedOrigins: [new URL(standInUrl()).origin] });

/** From the results of a deep link to the form: Add to cart, Book now, the guest's name and email. */
async function toTheForm(guest: Guest, item: string): Promise<void> {
  const { page, widget } = guest;
  await resultItem(page, item).getByRole('button', { name: 'Add to cart' }).click();
  await cartLine(page, item).waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await widget.getByRole('button', { name: 'Book now' }).click();
  await widget.getByLabel('Full name').fill(`Guest of ${item}`);
  await widget.getByLabel('Email').fill('guest@example.com');
}

/** What the form says is paid now and what later, as read. */
const termsShown = (guest: Guest) => textOf(guest.widget.locator('#payment-terms'));

/** "Confirm and pay", and the stand-in's checkout page it leads to. */
async function confirmAndPay(guest: Guest): Promise<void> {
  const checkout = `${standInUrl()}/c/pay/**`;
  await Promise.all([
    guest.page.waitForURL(checkout, { timeout: STEP_TIMEOUT }),
    guest.widget.getByRole('button', { name: 'Confirm and pay' }).click(),
  ]);
}

/** On the stand-in's page: pay, decline, or go back; pay and back come to the return page. */
async function onCheckout(
  page: Page,
  action: 'Pay with test card' | 'Decline (card declined)' | 'Back (cancel)',
) {
  const control =
    action === 'Back (cancel)'
      ? page.getByRole('link', { name: action })
      : page.getByRole('button', { name: action });
  await Promise.all([page.waitForEvent('load'), control.click()]);
}

/**
 * The address a guest on the stand-in's checkout page is sent to after paying: its "Back (cancel)" address
 * with the checkout named instead of `payment=cancelled`, as the create gave them both.
 */
async function successAddressOf(page: Page): Promise<string> {
  const back = new URL((await page.getByRole('link', { name: 'Back (cancel)' }).getAttribute('href')) ?? '');
  back.searchParams.delete('payment');
  back.searchParams.set('checkout', new URL(page.url()).pathname.split('/').at(-1) ?? '');
  return back.href;
}

/** The return page's headline. */
const headline = async (page: Page) => normalize(await page.getByRole('heading', { level: 1 }).innerText());

/**
 * Reads the return page until it says `wanted`, pressing its "Check again" as a guest would while the
 * provider's word is on its way (its webhook reaches the service a moment after the guest).
 */
async function waitForOutcome(page: Page, wanted: string): Promise<void> {
  for (let tries = 0; tries < 40 && (await headline(page)) !== wanted; tries++) {
    await new Promise((wake) => setTimeout(wake, 250));
    const again = page.getByRole('link', { name: 'Check again' });
    if ((await again.count()) === 0) break;
    await Promise.all([page.waitForEvent('load'), again.click()]);
  }
  expect(await headline(page)).toBe(wanted);
}

/** axe on a page that has no widget (the return page), at its width and at a phone's, without sideways scroll. */
async function auditPage(page: Page, step: string): Promise<void> {
  const size = page.viewportSize();
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 812 });
    await page.evaluate(() => {
      const frame = (globalThis as any).requestAnimationFrame.bind(globalThis);
      return new Promise((painted) => frame(() => frame(painted)));
    });
    expect.soft(await axeViolations(page), `axe-core at "${step}", ${width} px`).toEqual([]);
    const overflow = await measureOverflow(page);
    expect.soft(overflow.scrollWidth, `"${step}" scrolls sideways at ${width} px`).toBeLessThanOrEqual(width);
    await screenshot(page, `payment-${step.replace(/\W+/g, '-')}-${width}`);
  }
  if (size) await page.setViewportSize(size);
}

/** The booking as staff read it. */
const staffRead = async (code: string) => (await staffGet(suite.apiBase, `booking/${code}`)).booking;

/** The booking code of the return page the guest is on. */
const codeOf = (page: Page) => new URL(page.url()).searchParams.get('booking') ?? '';

/** A date as the widget writes a balance's date: "July 1, 2027". */
const longDate = (iso: string) =>
  new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: 'long', day: 'numeric' }).format(
    new Date(`${iso}T12:00:00`),
  );

describe('paying for a booking through the widget and the booking page', () => {
  it('says the deposit now and the rest by its date before confirming; paid with the test card, the page says so and restates the booking', async () => {
    const start = fromToday(60);
    const guest = await openBook(1280, `item=2&start=${start}&nights=2`);
    const { page } = guest;
    await toTheForm(guest, 'Boathouse Loft Suite');
    const total = Number(lastSession(guest.traffic)?.total);
    const rest = (total - 100).toFixed(2);
    const due = new Date(`${start}T12:00:00`);
    due.setDate(due.getDate() - 14);
    expect(await termsShown(guest)).toBe(
      `To pay: ${money(100)} deposit now, then ${money(rest)} by ${longDate(due.toISOString().slice(0, 10))}. You pay on a secure payment page next. Unpaid after 30 minutes, the booking is released.`,
    );
    await audit(page, 'the form with the deposit, 1280 px');
    await screenshot(page, 'payment-form-deposit-1280');
    await confirmAndPay(guest);
    await onCheckout(page, 'Pay with test card');
    await waitForOutcome(page, 'Booking confirmed');
    const code = codeOf(page);
    const said = normalize(await page.locator('main').innerText());
    expect(said).toContain(`We have received ${money(100)}. The rest, ${money(rest)}, is due by`);
    expect(said).toMatch(new RegExp(`Booking ${code} Boathouse Loft Suite .+ · 2 nights Adults: 2 \\$`));
    expect(said).toContain(`Total ${money(total)} Paid ${money(100)} Still to pay ${money(rest)}`);
    expect((await staffRead(code)).status_id).toBe('PART');
    await auditPage(page, 'paid');
    await expectCleanTraffic(guest);
  }, 150_000);

  it('in full on a phone: nothing empty under the widget; back unpaid, "not paid yet"; declined, a try again that pays', async () => {
    const guest = await openBook(375, `item=3&start=${fromToday(45)}&nights=1`);
    const { page, widget } = guest;
    await toTheForm(guest, 'Touring Kayak');
    const total = lastSession(guest.traffic)?.total;
    expect(await termsShown(guest)).toBe(
      `To pay: ${money(total)} now. You pay on a secure payment page next. Unpaid after 30 minutes, the booking is released.`,
    );
    await audit(page, 'the form with the full payment, 375 px');
    // The first way to the checkout is stopped, so the widget's own words after the booking can be read.
    await page.route(`${standInUrl()}/c/pay/**`, (route) => route.abort('aborted'), { times: 1 });
    await widget.getByRole('button', { name: 'Confirm and pay' }).click();
    const heading = widget.getByRole('heading', { name: 'Now pay to confirm your booking' });
    await heading.waitFor({ timeout: STEP_TIMEOUT });
    expect(await textOf(widget), 'a booking nobody paid is never "confirmed"').not.toMatch(/confirmed/i);
    const box = await widget.evaluate((host) => {
      const section = (host as any).shadowRoot.querySelector('[part~="confirmation"]');
      return { below: host.getBoundingClientRect().bottom - section.getBoundingClientRect().bottom };
    });
    // The section's own margin (1rem) and no more: before, the widget kept its 64rem below it.
    expect(box.below, 'the empty space under the confirmation, px').toBeLessThanOrEqual(24);
    await audit(page, 'the booking made, on its way to pay, 375 px');
    await screenshot(page, 'payment-widget-to-pay-375');

    // Back on the page the provider returns to after paying, without paying: nothing is paid, nothing changed.
    await Promise.all([
      page.waitForURL(`${standInUrl()}/c/pay/**`),
      widget.getByRole('link', { name: `Pay ${money(total)} now` }).click(),
    ]);
    await page.goto(await successAddressOf(page));
    expect(await headline(page)).toBe('Not paid yet');
    const code = codeOf(page);
    expect((await staffRead(code)).status_id).toBe('PEND');
    await auditPage(page, 'not paid yet');

    // Declined on the checkout page and back: the page says so, and its "Try again" pays.
    await Promise.all([
      page.waitForURL(`${standInUrl()}/c/pay/**`),
      page.getByRole('link', { name: /^Pay .* now$/ }).click(),
    ]);
    await onCheckout(page, 'Decline (card declined)');
    await onCheckout(page, 'Back (cancel)');
    await waitForOutcome(page, 'Your payment was declined');
    await auditPage(page, 'declined');
    await Promise.all([
      page.waitForURL(`${standInUrl()}/c/pay/**`),
      page.getByRole('link', { name: 'Try again' }).click(),
    ]);
    await onCheckout(page, 'Pay with test card');
    await waitForOutcome(page, 'Booking confirmed');
    expect(normalize(await page.locator('main').innerText())).toContain('Nothing more is due.');
    expect((await staffRead(code)).status_id).toBe('PAID');
    await expectCleanTraffic(guest);
  }, 150_000);

  it('asks again for a payment page that could not open; unpaid by the deadline, the page says the booking was released', async () => {
    const guest = await openBook(1280, `item=3&start=${fromToday(50)}&nights=1`);
    const { page, widget } = guest;
    await toTheForm(guest, 'Touring Kayak');
    // The provider fails the create's three tries: the booking is held, with no payment page yet.
    await standInCall('/_standin/faults/api', { mode: 'error', when: 'before', count: 3 });
    await widget.getByRole('button', { name: 'Confirm and pay' }).click();
    await widget
      .getByRole('heading', { name: 'Your booking is not paid yet' })
      .waitFor({ timeout: STEP_TIMEOUT });
    await standInCall('/_standin/faults/api/clear', {});
    await audit(page, 'the payment page did not open, 1280 px');
    await Promise.all([
      page.waitForURL(`${standInUrl()}/c/pay/**`, { timeout: STEP_TIMEOUT }),
      widget.getByRole('button', { name: 'Try again' }).click(),
    ]);

    // The guest leaves the checkout; its deadline comes (planted early: the shortest a tenant may set is 5
    // minutes), the sweeper releases the booking and closes the checkout.
    const code = new URL(await successAddressOf(page)).searchParams.get('booking') ?? '';
    const bookingId = Number((await staffRead(code)).booking_id);
    const past = Math.floor(Date.now() / 1000) - 1;
    const db = createDb({ endpoint: inject('dynamoEndpoint'), tableName: suite.service.tableName });
    await db.documents.send(
      new PutCommand({
        TableName: db.tableName,
        Item: {
          ...paymentDueKey(past, bookingId),
          entity: 'payment_due',
          booking_id: bookingId,
          deadline: past,
        },
      }),
    );
    await expect.poll(async () => (await staffRead(code)).status_id, { timeout: STEP_TIMEOUT }).toBe('VOID');
    await page.reload();
    await onCheckout(page, 'Back (cancel)');
    expect(await headline(page)).toBe('Booking released: not paid in time');
    expect(normalize(await page.locator('main').innerText())).toContain(`Booking ${code} Touring Kayak`);
    await auditPage(page, 'released');
    await expectCleanTraffic(guest);
  }, 150_000);
});
