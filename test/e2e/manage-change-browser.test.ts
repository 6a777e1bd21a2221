import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot } from '#test/support/chromium.ts';
import {
  addDays,
  type CreatedBooking,
  clean,
  nextDow,
  setUpManageSuite,
  shown,
} from '#test/support/manage-world.ts';
import { normalize, STEP_TIMEOUT } from '#test/support/widget-page.ts';
import { STAFF, staffGet } from '#test/support/widget-service.ts';

// Issue 44, item 6: the change of dates and party on the guest's page (`/manage`), in Chromium at a phone's and
// a desktop's width against `npm start` and its Stripe stand-in. The demo's kayak costs more on weekend days
// (55.00 against 45.00), so moving a booking paid in full between weekdays and a weekend changes its price
// both ways: less gives back the difference (the full tier of the policy), more waits for the difference,
// paid at the stand-in's checkout, and is then made. The same price is made at once; a sold-out stay is
// refused in the server's words; a quote changed before the confirm is shown again; a checkout the provider
// could not open is opened by the confirm sent again. Every amount and
// sentence the page shows is compared with the API's own quote; axe finds nothing at each step.
const { suite, money, world } = setUpManageSuite('manage-change');

const SATURDAY = 6;
const TUESDAY = 2;

/** The guest's page of a booking, loaded, at a width; the stand-in's checkout may be visited from it. */
async function openManage(created: CreatedBooking, width: number): Promise<Page> {
  const { page } = await suite.open(width, {
    url: created.manage_url,
    waitForWidget: false,
    allowedOrigins: [new URL(world.standInUrl()).origin],
  });
  await page.getByRole('heading', { name: `Booking ${created.code}` }).waitFor({ timeout: STEP_TIMEOUT });
  return page;
}

/**
 * Opens the change's form and asks for its price: a new first day (the last moves with it; `via` a day chosen
 * first), a party size.
 */
async function askPrice(
  page: Page,
  first: string,
  options: { label?: string; party?: string; via?: string } = {},
) {
  await page.getByRole('button', { name: /^Change dates/ }).click();
  const title = page.getByRole('heading', { name: 'Change your booking' });
  await title.waitFor();
  expect(await title.evaluate((node) => node === (globalThis as any).document.activeElement)).toBe(true);
  const start = page.getByLabel(options.label ?? 'First day');
  if (options.via) await start.fill(options.via);
  await start.fill(first);
  if (options.party) await page.getByLabel('Quantity').fill(options.party);
  await clean(page, 'the form');
  await screenshot(page, `manage-change-form-${page.viewportSize()?.width}`);
  await page.getByRole('button', { name: 'See the price' }).click();
}

/** The heading the page gives a quote, from the API's difference. */
const priceHeading = (quote: { difference: string }) => {
  const difference = Number(quote.difference);
  if (difference === 0) return 'The change costs the same';
  return `The change costs ${money(String(Math.abs(difference)))} ${difference > 0 ? 'more' : 'less'}`;
};

/** Waits for the heading `name` and checks it has the focus (a screen reader reads it). */
async function focusedHeading(page: Page, name: string) {
  const heading = page.getByRole('heading', { name });
  await heading.waitFor({ timeout: STEP_TIMEOUT });
  expect(await heading.evaluate((node) => node === (globalThis as any).document.activeElement)).toBe(true);
}

const staffRead = async (code: string) => (await staffGet(suite.apiBase, `booking/${code}`)).booking;

describe("changing a booking's dates on the guest's page", () => {
  for (const width of [375, 1280]) {
    it(`at ${width} px: to cheaper dates, shows what comes back, changes the booking and gives the difference back`, async () => {
      const saturday = nextDow(30, SATURDAY);
      const created = await world.paidBooking(saturday, addDays(saturday, 1));
      const page = await openManage(created, width);
      const tuesday = addDays(saturday, 3);
      await askPrice(page, tuesday);
      const { change: quote } = await world.changeQuoteOf(
        created,
        `start_date=${tuesday}&end_date=${addDays(tuesday, 1)}`,
      );
      expect(Number(quote.difference)).toBeLessThan(0);
      expect(quote.refund).toBe(quote.difference.slice(1));
      await focusedHeading(page, priceHeading(quote));
      const offer = await shown(page);
      expect(offer).toContain(`New dates ${quote.to.date_desc}`);
      expect(offer).toContain(`New total ${money(quote.to.total)}`);
      expect(offer).toContain(`You get back ${money(quote.refund)}`);
      expect(offer).toContain(normalize(quote.text));
      await clean(page, 'a cheaper quote');
      await screenshot(page, `manage-change-less-quote-${width}`);

      await page.getByRole('button', { name: 'Confirm change' }).click();
      await focusedHeading(page, 'Your booking is changed');
      const after = await shown(page);
      expect(after).toContain(`Refund: ${money(quote.refund)}`);
      expect(after).toContain(`${money(quote.refund)} goes back to the card you paid with`);
      expect(after).toContain(`Dates ${quote.to.date_desc}`);
      expect(after).toContain(`Total ${money(quote.to.total)}`);
      const stored = await staffRead(created.code);
      expect(stored.total).toBe(quote.to.total);
      expect(stored.paid_total).toBe(quote.to.total);
      await clean(page, 'changed for less');
      await screenshot(page, `manage-change-less-done-${width}`);
    });

    it(`at ${width} px: to dearer dates${width > 400 ? ' and a larger party' : ''}, sends the guest to pay the difference; paid, the booking has its new dates`, async () => {
      const tuesday = nextDow(30, TUESDAY);
      const created = await world.paidBooking(tuesday, addDays(tuesday, 1));
      const page = await openManage(created, width);
      const saturday = addDays(tuesday, 4);
      const party = width > 400 ? '2' : undefined;
      await askPrice(page, saturday, party ? { party } : {});
      const { change: quote } = await world.changeQuoteOf(
        created,
        `start_date=${saturday}&end_date=${addDays(saturday, 1)}${party ? `&param[qty]=${party}` : ''}`,
      );
      expect(quote.mode).toBe('pay');
      await focusedHeading(page, priceHeading(quote));
      const offer = await shown(page);
      expect(offer).toContain(`To pay now ${money(quote.charge)}`);
      expect(offer).toContain(normalize(quote.text));
      expect(offer).not.toContain('You get back');
      await clean(page, 'a dearer quote');
      await screenshot(page, `manage-change-more-quote-${width}`);

      await page.getByRole('button', { name: 'Confirm change' }).click();
      await focusedHeading(page, 'Your change waits for its payment');
      const waiting = await shown(page);
      expect(waiting).toContain(`new total ${money(quote.to.total)}`);
      // Until it is paid, the booking is as it was.
      expect(waiting).toContain(`Total ${money(created.total)}`);
      expect(waiting).toContain('A change of this booking waits for its payment');
      expect(waiting).not.toContain('Pay now');
      await clean(page, 'a change waiting for its payment');
      await screenshot(page, `manage-change-more-waiting-${width}`);

      const pay = page.getByRole('link', { name: `Pay ${money(quote.charge)} to confirm the change` });
      await Promise.all([page.waitForURL(`${world.standInUrl()}/c/pay/**`), pay.click()]);
      // Paid, the checkout sends the guest back to their own page; the stand-in's webhook makes the change a
      // moment after, which the page shows once read again.
      await Promise.all([
        page.waitForURL('**/manage?**'),
        page.getByRole('button', { name: 'Pay with test card' }).click(),
      ]);
      await expect
        .poll(async () => (await staffRead(created.code)).total, { timeout: STEP_TIMEOUT })
        .toBe(quote.to.total);
      await page.reload();
      await page.getByRole('heading', { name: `Booking ${created.code}` }).waitFor({ timeout: STEP_TIMEOUT });
      const paid = await shown(page);
      expect(paid).toContain(`Dates ${quote.to.date_desc}`);
      expect(paid).toContain(`Total ${money(quote.to.total)} Paid ${money(quote.to.total)}`);
      if (party) expect(paid).toContain(`(Quantity ${party})`);
      expect(paid).not.toContain('waits for its payment');
      await clean(page, 'the change paid');
      await screenshot(page, `manage-change-more-paid-${width}`);
    });
  }

  it('a checkout the provider could not open: says so, and the confirm sent again opens it', async () => {
    const tuesday = nextDow(30, TUESDAY);
    const created = await world.paidBooking(tuesday, addDays(tuesday, 1));
    const page = await openManage(created, 375);
    const saturday = addDays(tuesday, 4);
    await askPrice(page, saturday);
    const { change: quote } = await world.changeQuoteOf(
      created,
      `start_date=${saturday}&end_date=${addDays(saturday, 1)}`,
    );
    await focusedHeading(page, priceHeading(quote));
    // The provider fails its calls (the adapter's retries too): the checkout of the difference is not opened.
    await world.standIn('/_standin/faults/api', { mode: 'error', when: 'before', count: 20 });
    await page.getByRole('button', { name: 'Confirm change' }).click();
    await expect
      .poll(async () => shown(page), { timeout: STEP_TIMEOUT })
      .toContain('The payment page could not be opened: please confirm again in a minute.');
    await world.standIn('/_standin/faults/api/clear', {});
    expect(await page.getByRole('link', { name: /to confirm the change/ }).count()).toBe(0);
    await clean(page, 'a checkout not opened');
    await page.getByRole('button', { name: 'Confirm change' }).click();
    await focusedHeading(page, 'Your change waits for its payment');
    await page
      .getByRole('link', { name: `Pay ${money(quote.charge)} to confirm the change` })
      .waitFor({ timeout: STEP_TIMEOUT });
  });

  it('to dates of the same price: changes the booking at once, with nothing to pay or give back', async () => {
    const tuesday = nextDow(30, TUESDAY);
    const created = await world.paidBooking(tuesday, addDays(tuesday, 1));
    const page = await openManage(created, 375);
    const wednesday = addDays(tuesday, 1);
    await askPrice(page, wednesday);
    const { change: quote } = await world.changeQuoteOf(
      created,
      `start_date=${wednesday}&end_date=${addDays(wednesday, 1)}`,
    );
    await focusedHeading(page, 'The change costs the same');
    expect(quote.difference).toBe('0.00');
    expect(await shown(page)).toContain(normalize(quote.text));
    await clean(page, 'the same price');
    await page.getByRole('button', { name: 'Confirm change' }).click();
    await focusedHeading(page, 'Your booking is changed');
    const after = await shown(page);
    expect(after).toContain(`Dates ${quote.to.date_desc}`);
    expect(after).not.toContain('Refund');
    expect(after).toContain(`Total ${money(created.total)} Paid ${money(created.total)} Due ${money('0')}`);
    await clean(page, 'changed at the same price');
    await screenshot(page, 'manage-change-same-375');
  });

  it("to nights another guest holds: refuses in the server's words, and the booking stays as it was", async () => {
    // The loft (one in stock) for two nights; another guest holds it two weeks later.
    const arrival = nextDow(30, TUESDAY);
    const created = await world.paidBooking(arrival, addDays(arrival, 2), { item: 2 });
    const later = addDays(arrival, 14);
    await world.hold(2, later, addDays(later, 2));
    const page = await openManage(created, 1280);
    // The check-out moves with each new check-in, two nights on.
    await askPrice(page, later, { label: 'Check-in date', via: addDays(later, -5) });
    expect(await page.getByLabel('Check-out date').inputValue()).toBe(addDays(later, 2));
    const refusal = (await world.changeQuoteOf(created, `start_date=${later}&end_date=${addDays(later, 2)}`))
      .request.error;
    expect(refusal.data.reason).toBe('sold_out');
    await focusedHeading(page, 'This change cannot be made');
    expect(await shown(page)).toContain(normalize(refusal.details));
    expect(await page.getByRole('button', { name: 'Confirm change' }).count()).toBe(0);
    await clean(page, 'sold out');
    await screenshot(page, 'manage-change-sold-out-1280');
    // Back to the form as the guest left it.
    await page.getByRole('button', { name: 'Choose other dates' }).click();
    expect(await page.getByLabel('Check-in date').inputValue()).toBe(later);
    expect((await staffRead(created.code)).total).toBe(created.total);
  });

  it('a quote changed before the confirm: says so, shows the new quote, and changes on it', async () => {
    const saturday = nextDow(30, SATURDAY);
    const created = await world.paidBooking(saturday, addDays(saturday, 1));
    const page = await openManage(created, 375);
    const tuesday = addDays(saturday, 3);
    const change = `start_date=${tuesday}&end_date=${addDays(tuesday, 1)}`;
    await askPrice(page, tuesday);
    const first = (await world.changeQuoteOf(created, change)).change;
    await focusedHeading(page, priceHeading(first));
    // Meanwhile staff give 10.00 back: less is paid, so less comes back of the difference.
    const paymentId = (await staffRead(created.code)).payments[0].id;
    const refunded = await fetch(`${suite.apiBase}/booking/${created.code}/payment/${paymentId}/refund`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${STAFF.key}:${STAFF.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'amount=10.00',
    });
    expect(refunded.status, await refunded.clone().text()).toBe(200);
    const second = (await world.changeQuoteOf(created, change)).change;
    expect(second.refund).not.toBe(first.refund);
    await page.getByRole('button', { name: 'Confirm change' }).click();
    await expect
      .poll(async () => shown(page), { timeout: STEP_TIMEOUT })
      .toContain(`You get back ${money(second.refund)}`);
    expect(await shown(page)).toContain('What this change costs has changed');
    expect((await staffRead(created.code)).total).toBe(created.total);
    await clean(page, 'a changed quote');
    await page.getByRole('button', { name: 'Confirm change' }).click();
    await focusedHeading(page, 'Your booking is changed');
    expect(await shown(page)).toContain(`Refund: ${money(second.refund)}`);
  });
});
