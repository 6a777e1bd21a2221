import { describe, expect, it } from 'vitest';
import { screenshot } from '#test/support/chromium.ts';
import { clean, daysAhead, setUpManageSuite, shown } from '#test/support/manage-world.ts';
import { normalize, STEP_TIMEOUT } from '#test/support/widget-page.ts';
import { STAFF, staffGet } from '#test/support/widget-service.ts';

// Issue 44, item 6: the guest's page of their booking, `/manage?booking=CODE&token=T`, in Chromium at a
// phone's and a desktop's width against `npm start` and its Stripe stand-in. A kayak booking paid in full under
// a cancellation policy: the page shows it with the policy's words, "Cancel booking" shows the server's quote,
// the confirm cancels it and says what comes back; axe finds nothing at each step. A wrong token's link says
// the link is not valid; past the cutoff, and a quote changed before the confirm, the page says so in the
// server's words.
const { suite, money, world } = setUpManageSuite('manage-page');

const { paidBooking: paidFrom, quoteOf } = world;

/** A kayak booked for two days, `ahead` days from now, and paid in full at the stand-in. */
const paidBooking = (ahead = 40) => paidFrom(daysAhead(ahead), daysAhead(ahead + 1));

describe("the guest's page of their booking", () => {
  for (const width of [375, 1280]) {
    it(`at ${width} px: shows the booking and its policy, quotes the refund, cancels, and says what comes back`, async () => {
      const created = await paidBooking();
      const { page } = await suite.open(width, { url: created.manage_url, waitForWidget: false });
      await page.getByRole('heading', { name: `Booking ${created.code}` }).waitFor({ timeout: STEP_TIMEOUT });
      const before = await shown(page);
      expect(before).toContain('Touring Kayak');
      expect(before).toContain(`Total ${money(created.total)}`);
      expect(before).toContain(`Paid ${money(created.total)}`);
      expect(before).toMatch(/Cancellation policy \S/);
      expect(before).not.toMatch(/Pay now/);
      await page.getByRole('link', { name: 'View your invoice' }).waitFor();
      await clean(page, 'the booking');
      await screenshot(page, `manage-page-${width}`);

      // The quote the server works out, shown as it says it.
      const token = new URL(created.manage_url).searchParams.get('token') ?? '';
      const quoted: any = await (
        await fetch(`${suite.apiBase}/booking/${created.code}/manage/cancel?token=${token}`)
      ).json();
      const quote = quoted.cancellation;
      expect(quote.refund).toBe((Number(created.total) - 15).toFixed(2));
      await page.getByRole('button', { name: 'Cancel booking' }).click();
      const offer = page.getByRole('heading', {
        name: `You get back ${money(quote.refund)} of ${money(created.total)}`,
      });
      await offer.waitFor({ timeout: STEP_TIMEOUT });
      expect(await offer.evaluate((node) => node === (globalThis as any).document.activeElement)).toBe(true);
      expect(await shown(page)).toContain(quote.text);
      await clean(page, 'the quote');
      await screenshot(page, `manage-page-quote-${width}`);

      await page.getByRole('button', { name: 'Yes, cancel my booking' }).click();
      await page
        .getByRole('heading', { name: 'Your booking is cancelled' })
        .waitFor({ timeout: STEP_TIMEOUT });
      const after = await shown(page);
      expect(after).toContain(`Refund: ${money(quote.refund)}`);
      expect(after).toContain(`${money(quote.refund)} goes back to the card you paid with`);
      expect(after).toMatch(/Status Cancel/);
      expect(after, 'a cancelled booking owes nothing').not.toMatch(/Due/);
      expect(after).toContain('This booking is no longer active.');
      expect(await page.getByRole('button', { name: 'Cancel booking' }).count()).toBe(0);
      expect((await staffGet(suite.apiBase, `booking/${created.code}`)).booking.status_id).toBe('CANCELLED');
      await clean(page, 'cancelled');
      await screenshot(page, `manage-page-cancelled-${width}`);
    });
  }

  it('says a link with a wrong token is not valid, and nothing of the booking', async () => {
    const created = await paidBooking();
    const wrong = new URL(created.manage_url);
    wrong.searchParams.set('token', `${wrong.searchParams.get('token')?.slice(0, -2)}xx`);
    const { page } = await suite.open(375, { url: wrong.href, waitForWidget: false });
    await page.getByRole('heading', { name: 'This link is not valid' }).waitFor({ timeout: STEP_TIMEOUT });
    expect(await shown(page)).not.toContain(created.code);
    await clean(page, 'a wrong link');
  });

  it("past the cutoff: says so in the server's words, and offers no confirm", async () => {
    const created = await paidBooking(1);
    const refusal = (await quoteOf(created)).request.error;
    expect(refusal.data.reason).toBe('past_cutoff');
    const { page } = await suite.open(375, { url: created.manage_url, waitForWidget: false });
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    await page
      .getByRole('heading', { name: 'This booking cannot be cancelled here' })
      .waitFor({ timeout: STEP_TIMEOUT });
    expect(await shown(page)).toContain(normalize(refusal.details));
    expect(await page.getByRole('button', { name: 'Yes, cancel my booking' }).count()).toBe(0);
    await clean(page, 'past the cutoff');
  });

  it('a quote changed before the confirm: says so, shows the new quote, and cancels on it', async () => {
    const created = await paidBooking();
    const { page } = await suite.open(1280, { url: created.manage_url, waitForWidget: false });
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    const first = (await quoteOf(created)).cancellation;
    await page
      .getByRole('heading', { name: `You get back ${money(first.refund)} of ${money(first.paid)}` })
      .waitFor({ timeout: STEP_TIMEOUT });
    // Meanwhile staff give 10.00 back: less is paid, so less comes back.
    const staffRecord = await staffGet(suite.apiBase, `booking/${created.code}`);
    const paymentId = staffRecord.booking.payments[0].id;
    const refunded = await fetch(`${suite.apiBase}/booking/${created.code}/payment/${paymentId}/refund`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${STAFF.key}:${STAFF.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'amount=10.00',
    });
    expect(refunded.status, await refunded.clone().text()).toBe(200);
    const second = (await quoteOf(created)).cancellation;
    expect(second.refund).not.toBe(first.refund);
    await page.getByRole('button', { name: 'Yes, cancel my booking' }).click();
    await page
      .getByRole('heading', { name: `You get back ${money(second.refund)} of ${money(second.paid)}` })
      .waitFor({ timeout: STEP_TIMEOUT });
    expect(await shown(page)).toContain('What you would get back has changed');
    expect((await staffGet(suite.apiBase, `booking/${created.code}`)).booking.status_id).not.toBe(
      'CANCELLED',
    );
    await clean(page, 'a changed quote');
    await page.getByRole('button', { name: 'Yes, cancel my booking' }).click();
    await page.getByRole('heading', { name: 'Your booking is cancelled' }).waitFor({ timeout: STEP_TIMEOUT });
    expect(await shown(page)).toContain(`Refund: ${money(second.refund)}`);
  });
});
