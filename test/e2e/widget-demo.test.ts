import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { audit, liveRegionTexts } from '#test/support/accessibility.ts';
import { screenshot } from '#test/support/chromium.ts';
import { expectCleanTraffic, type Traffic } from '#test/support/traffic.ts';
import {
  becomesVisible,
  cartLine,
  pickDates,
  refusalShown,
  resultItem,
  STEP_TIMEOUT,
} from '#test/support/widget-page.ts';
import { holdThroughApi, staffGet } from '#test/support/widget-service.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 14, "how it will be checked": `npm start` with the demo tenant file as it is (its own per-client
// limits included), a real Chromium on the page it serves, booking by labels and roles on a desktop and a
// phone-sized window; the bookings appear in booking/index and axe finds no violation (issue 32: of any impact). The demo
// tenant's limit of three open holding sessions per client then gives a real 409 `hold_limit`.
const suite = setUpWidgetSuite({ tenantFile: 'infra/tenants/demo.json', name: 'demo' });
const { open } = suite;

const createdCode = async (traffic: Traffic, from: number): Promise<string> => {
  let code = '';
  await expect
    .poll(
      async () => {
        await traffic.settle();
        const create = traffic.api.slice(from).find((exchange) => exchange.path === 'booking/create');
        code = create?.json?.booking?.id ?? '';
        return create?.status;
      },
      { timeout: STEP_TIMEOUT, message: 'booking/create answers' },
    )
    .toBe(200);
  return code;
};

/** Books one item as a guest: dates on the calendar, Add to cart, Book now, the form, Confirm booking. */
async function bookAsGuest(
  page: Page,
  traffic: Traffic,
  options: { start: string; end: string; item: string },
) {
  const widget = page.locator('booking-widget');
  await pickDates(page, options.start, options.end);
  await resultItem(page, options.item).getByRole('button', { name: 'Add to cart' }).click();
  await cartLine(page, options.item).waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await widget.getByRole('button', { name: 'Book now' }).click();
  await widget.getByLabel('Full name').fill(`Guest of ${options.item}`);
  await widget.getByLabel('Email').fill('guest@example.com');
  const from = traffic.api.length;
  await widget.getByRole('button', { name: 'Confirm booking' }).click();
  const code = await createdCode(traffic, from);
  await widget.getByText(code).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  return code;
}

describe('the booking widget as it will be checked (the demo tenant as it is)', () => {
  it('books on a desktop and on a phone, and both bookings appear in booking/index', async () => {
    const codes: string[] = [];
    for (const [width, start, end, item] of [
      [1280, '2027-07-05', '2027-07-07', 'Lakeside Cabin'],
      [375, '2027-07-12', '2027-07-14', 'Touring Kayak'],
    ] as const) {
      const guest = await open(width);
      codes.push(await bookAsGuest(guest.page, guest.traffic, { start, end, item }));
      await screenshot(guest.page, `demo-${width}-confirmation`);
      await audit(guest.page, `demo tenant, ${width} px, confirmation`);
      await expectCleanTraffic(guest);
      await guest.context.close();
    }
    const index = await staffGet(suite.apiBase, 'booking/index');
    const listed = Object.values(index['booking/index'] ?? {}).map((row: any) => row.code);
    expect(listed).toEqual(expect.arrayContaining(codes));
  }, 150_000);

  it("shows the demo tenant's real 409 hold_limit in the API's words, without a retry that would fail the same way", async () => {
    // Three carts of this client already hold stock: the demo tenant allows no fourth.
    const held = [];
    for (const item of [3, 4, 1])
      held.push(await holdThroughApi(suite.apiBase, item, '20270802', '20270804'));
    const guest = await open(1280);
    const { page, traffic, widget } = guest;
    await pickDates(page, '2027-08-02', '2027-08-04');
    await resultItem(page, 'Mountain Bike').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const liveBefore = await liveRegionTexts(page);
    const from = traffic.api.length;
    await resultItem(page, 'Mountain Bike').getByRole('button', { name: 'Add to cart' }).click();
    await expect
      .poll(
        async () => {
          await traffic.settle();
          return traffic.api.slice(from).find((exchange) => exchange.status === 409)?.json?.request?.error
            ?.id;
        },
        { timeout: STEP_TIMEOUT, message: 'the API answers 409' },
      )
      .toBe('hold_limit');
    const retry = widget.getByRole('button', { name: /retry|try again/i });
    await refusalShown(page, /\w/);
    await screenshot(page, 'demo-1280-hold-limit');
    const message = (await liveRegionTexts(page))
      .filter((text) => text && !liveBefore.includes(text))
      .join(' ');
    const details = traffic.api.slice(from).find((exchange) => exchange.status === 409)?.json?.request
      ?.error?.details;
    expect(details, 'the API words the refusal for a guest').toMatch(/carts? holding items/);
    expect(message, "the API's words, announced").toContain(details);
    expect(await retry.count(), 'no retry: it would be refused the same way').toBe(0);
    await audit(page, 'hold_limit message');

    // One of the other carts ends, as the message asks; Add to cart then works.
    const ended = await fetch(`${suite.apiBase}/booking/session/end`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ session_id: held[0] ?? '' }).toString(),
    });
    expect(ended.status).toBe(200);
    await resultItem(page, 'Mountain Bike').getByRole('button', { name: 'Add to cart' }).click();
    expect(
      await becomesVisible(cartLine(page, 'Mountain Bike'), STEP_TIMEOUT),
      'the bike is added then',
    ).toBe(true);
    await expectCleanTraffic(guest);
  }, 120_000);
});
