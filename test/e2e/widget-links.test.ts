import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { audit, auditAlsoAtPhoneWidth, liveRegionTexts } from '#test/support/accessibility.ts';
import { screenshot } from '#test/support/chromium.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import {
  calendarOf,
  dayButton,
  fromToday,
  normalize,
  pickDates,
  resultItem,
  STEP_TIMEOUT,
  textOf,
  widgetOf,
} from '#test/support/widget-page.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 32 review: what a business's link asks of the widget (`nights`, items that cannot be booked
// online, a category), "Who is coming" following "Show dates for", and results that say how many can be
// booked and are never bookable for a party the guest has not finished typing. On the booking page.

const suite = setUpWidgetSuite({ tenant: makeWidgetTenant(), name: 'links' });

/** Opens `/book` with a deep link; `nights` replaces the page's end date with the widget's own attribute. */
async function openLink(width: number, query: string, nights?: number) {
  const guest = await suite.open(width, {
    url: `${suite.origin}/book?${query}`,
    prepare: (page) =>
      nights === undefined
        ? Promise.resolve()
        : page.route(
            (url) => url.pathname === '/book',
            async (route) => {
              const response = await route.fetch();
              const html = (await response.text()).replace(/ end-date="[^"]*"/, ` nights="${nights}"`);
              return route.fulfill({ response, body: html });
            },
          ),
  });
  return guest;
}

/** The line under the calendar that says the dates chosen. */
const choiceOf = (page: Page) => calendarOf(page).locator('#calendar-choice');

/** The labels of the quantities in "Who is coming", in alphabetical order. */
const partyLabels = async (page: Page): Promise<string[]> =>
  (await widgetOf(page).getByRole('region', { name: 'Who is coming' }).locator('label').allInnerTexts())
    .map(normalize)
    .sort();

const range = (start: string, end: string) =>
  normalize(
    new Intl.DateTimeFormat('en-CA', { weekday: 'short', month: 'short', day: 'numeric' }).formatRange(
      new Date(`${start}T12:00:00`),
      new Date(`${end}T12:00:00`),
    ),
  );

describe('deep links into the booking widget', () => {
  it('counts `nights` from the start as each unit reads a span: days for a daily item, nights for a nightly one', async () => {
    const start = fromToday(50);
    const kayak = await openLink(1280, `item=3&start=${start}&end=${fromToday(60)}`, 3);
    await resultItem(kayak.page, 'Touring Kayak').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect(await textOf(resultItem(kayak.page, 'Touring Kayak'))).toMatch(/3 days · \$\d/);
    expect(await textOf(choiceOf(kayak.page))).toBe(`${range(start, fromToday(52))} · 3 days`);
    expect(await dayButton(kayak.page, fromToday(52)).getAttribute('aria-label')).toMatch(/your last date/);
    await audit(kayak.page, 'links: nights of a daily item');

    const cabin = await openLink(375, `item=1&start=${start}&end=${fromToday(60)}`, 3);
    await resultItem(cabin.page, 'Lakeside Cabin').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect(await textOf(resultItem(cabin.page, 'Lakeside Cabin'))).toMatch(/3 nights · \$\d/);
    expect(await textOf(choiceOf(cabin.page))).toBe(`${range(start, fromToday(53))} · 3 nights`);

    // Items of several units: the nightly meaning, so the stay is the cabin's three nights.
    const all = await openLink(1280, `start=${start}&end=${fromToday(60)}`, 3);
    await resultItem(all.page, 'Lakeside Cabin').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect(await textOf(resultItem(all.page, 'Lakeside Cabin'))).toMatch(/3 nights · \$\d/);
    expect(await textOf(choiceOf(all.page))).toBe(range(start, fromToday(53)));
    for (const guest of [kayak, cabin, all]) await expectCleanTraffic(guest);
  }, 120_000);

  it('opens an hourly item on the linked date, chosen, with its hours', async () => {
    const date = fromToday(70);
    const guest = await openLink(375, `item=5&start=${date}`);
    const { page } = guest;
    const board = resultItem(page, 'Stand-up Paddleboard');
    await board.getByRole('group').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect(await dayButton(page, date).getAttribute('aria-label')).toMatch(/your first date/);
    expect(await textOf(choiceOf(page))).toBe(
      normalize(
        new Intl.DateTimeFormat('en-CA', { weekday: 'short', month: 'short', day: 'numeric' }).format(
          new Date(`${date}T12:00:00`),
        ),
      ),
    );
    await audit(page, 'links: an hourly item on its date');
    await expectCleanTraffic(guest);
  }, 90_000);

  it('says so when a link names nothing that can be booked online, and offers everything', async () => {
    for (const item of ['99', '9']) {
      const guest = await openLink(1280, `item=${item}`);
      const { page } = guest;
      const note = widgetOf(page).getByText(
        'This link names something that cannot be booked online; here is everything you can book.',
      );
      await note.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
      const chooser = widgetOf(page).getByLabel('Show dates for');
      expect(await chooser.locator('option').count(), `item=${item}: every item offered`).toBe(8);
      expect(await partyLabels(page)).toEqual(['Adults', 'Children', 'Quantity']);
      const free = calendarOf(page).getByRole('button', { name: /, available/ });
      await free.first().waitFor({ state: 'attached', timeout: STEP_TIMEOUT });
      await screenshot(page, `links-unbookable-item-${item}`);
      await audit(page, `links: item=${item}`);
      await auditAlsoAtPhoneWidth(page, `links: item=${item}`);
      await expectCleanTraffic(guest);
    }
  }, 120_000);

  it('names the linked category in "Show dates for"', async () => {
    const guest = await openLink(1280, 'category=2');
    const chooser = widgetOf(guest.page).getByLabel('Show dates for');
    await expect
      .poll(() => chooser.locator('option').first().innerText(), { timeout: STEP_TIMEOUT })
      .toBe('Everything in Rentals');
    expect(await partyLabels(guest.page)).toEqual(['Quantity']);
    await audit(guest.page, 'links: a category');
    await expectCleanTraffic(guest);
  }, 90_000);
});

describe('"Who is coming", the results and the calendar', () => {
  it('shows only the quantities of the item "Show dates for" has chosen, and says so', async () => {
    const guest = await openLink(1280, '');
    const { page } = guest;
    const chooser = widgetOf(page).getByLabel('Show dates for');
    await expect.poll(() => chooser.isEnabled(), { timeout: STEP_TIMEOUT }).toBe(true);
    expect(await partyLabels(page)).toEqual(['Adults', 'Children', 'Quantity']);
    await chooser.selectOption({ label: 'Stand-up Paddleboard' });
    await expect.poll(() => partyLabels(page), { timeout: STEP_TIMEOUT }).toEqual(['Quantity']);
    await expect
      .poll(async () => (await liveRegionTexts(page)).join(' '), { timeout: STEP_TIMEOUT })
      .toContain('The calendar shows dates for Stand-up Paddleboard. Choose your dates.');
    await chooser.selectOption({ label: 'Cabin & Breakfast Getaway' });
    await expect.poll(() => partyLabels(page), { timeout: STEP_TIMEOUT }).toEqual(['Adults', 'Children']);
    await chooser.selectOption({ label: 'Everything' });
    await expect
      .poll(() => partyLabels(page), { timeout: STEP_TIMEOUT })
      .toEqual(['Adults', 'Children', 'Quantity']);

    // No month before this one can be chosen.
    const previous = calendarOf(page).getByRole('button', { name: 'Previous month' });
    const next = calendarOf(page).getByRole('button', { name: 'Next month' });
    const month = calendarOf(page).getByRole('heading', { level: 3 });
    const shown = await month.innerText();
    expect(await previous.getAttribute('aria-disabled')).toBe('true');
    await previous.click({ force: true });
    expect(await month.innerText(), 'the month stays').toBe(shown);
    await next.click();
    await expect.poll(() => previous.getAttribute('aria-disabled'), { timeout: STEP_TIMEOUT }).toBe('false');
    await audit(page, 'links: the chooser');
    await expectCleanTraffic(guest);
  }, 90_000);

  it('says how many options can be booked, and none is bookable while the party is invalid', async () => {
    const guest = await openLink(1280, '');
    const { page } = guest;
    const widget = widgetOf(page);
    const results = widget.getByRole('region', { name: 'Results' });
    // One night: the cabin needs two, so some options can be booked and some cannot.
    await pickDates(page, fromToday(40), fromToday(41));
    await resultItem(page, 'Touring Kayak').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect(await textOf(results)).toMatch(
      new RegExp(`\\d of \\d+ options can be booked for ${range(fromToday(40), fromToday(41))}`),
    );
    const add = results.getByRole('button', { name: 'Add to cart' });
    expect(await add.count()).toBeGreaterThan(0);

    const adults = widget.getByRole('region', { name: 'Who is coming' }).getByLabel('Adults');
    await adults.fill('9');
    await adults.press('Tab');
    await widget.getByText('Enter a whole number from 0 to 8').waitFor({ timeout: STEP_TIMEOUT });
    expect(await add.count(), 'nothing bookable for an invalid party').toBe(0);
    await screenshot(page, 'links-invalid-party');
    await audit(page, 'links: an invalid party');
    await auditAlsoAtPhoneWidth(page, 'links: an invalid party');
    await adults.fill('2');
    await adults.press('Tab');
    await expect.poll(() => add.count(), { timeout: STEP_TIMEOUT }).toBeGreaterThan(0);

    // The cabin alone for one night: nothing can be booked, and the results say so.
    await widget.getByLabel('Show dates for').selectOption({ label: 'Lakeside Cabin' });
    await pickDates(page, fromToday(40), fromToday(41));
    await expect
      .poll(() => textOf(results), { timeout: STEP_TIMEOUT })
      .toContain(`No option can be booked for ${range(fromToday(40), fromToday(41))}; see why below`);
    await audit(page, 'links: nothing bookable');
    await expectCleanTraffic(guest);
  }, 120_000);
});
