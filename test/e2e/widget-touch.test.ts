import { readFileSync } from 'node:fs';
import ICAL from 'ical.js';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { audit } from '#test/support/accessibility.ts';
import { screenshot } from '#test/support/chromium.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import { lastSession, mainLines } from '#test/support/widget-checks.ts';
import {
  bookingForm,
  calendarOf,
  cartLine,
  cartOf,
  fromToday,
  normalize,
  pickDates,
  resultItem,
  STEP_TIMEOUT,
  setValue,
  textOf,
  widgetOf,
} from '#test/support/widget-page.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 32: a guest books on a phone (375 px, touch) by tapping only: a nightly stay, an hourly slot and a
// package, every control tapped at least 44 × 44 CSS px (WCAG 2.5.5, the rule this widget keeps: see
// docs/decisions.md "Issue 32: the widget"), axe clean at each step, a screenshot of each step in
// test/artifacts/widget/touch-375-*.png, and the page not moving while the widget draws itself. On the
// booking page (`/book`), as a guest following a business's link meets it.

const tenant = makeWidgetTenant();
const suite = setUpWidgetSuite({ tenant, name: 'touch' });

/** The smallest target this widget gives a control a guest taps, in CSS px (each side). */
const TARGET = 44;

/** Taps a control after checking it is a touch-sized target; records what was tapped. */
function tapper(tapped: string[]) {
  return async (control: Locator): Promise<void> => {
    await control.scrollIntoViewIfNeeded({ timeout: STEP_TIMEOUT });
    const box = await control.boundingBox();
    const name = (await control.getAttribute('aria-label')) ?? (await control.innerText()).trim();
    expect(box, `"${name}" is on the page`).toBeTruthy();
    expect
      .soft(Math.min(box?.width ?? 0, box?.height ?? 0), `"${name}" is at least ${TARGET} × ${TARGET} px`)
      .toBeGreaterThanOrEqual(TARGET - 0.5);
    tapped.push(name);
    await control.tap();
  };
}

/** The layout shifts the page has had so far (CLS as the browser reports it, shifts after input left out). */
const layoutShift = (page: Page): Promise<number> =>
  page.evaluate(() => (globalThis as any).__layoutShift as number);

const RAW_DATE = /\b\d{4}-\d{2}-\d{2}\b|\b20\d{6}\b/;

/** Records the page's layout shifts, and the widget's height at each frame once it has drawn itself. */
const WATCH_LAYOUT = () => {
  const scope = globalThis as any;
  scope.__layoutShift = 0;
  scope.__widgetHeights = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as any[])
      if (!entry.hadRecentInput) scope.__layoutShift += entry.value;
  }).observe({ type: 'layout-shift' as any, buffered: true });
  const frame = () => {
    const widget = scope.document.querySelector('booking-widget');
    if (widget?.shadowRoot?.childElementCount) {
      const height = Math.round(widget.getBoundingClientRect().height);
      if (scope.__widgetHeights.at(-1) !== height) scope.__widgetHeights.push(height);
    }
    scope.requestAnimationFrame(frame);
  };
  scope.requestAnimationFrame(frame);
};

describe('the booking widget on a phone, by touch', () => {
  it('books a nightly stay, an hourly slot and a package by tapping touch-sized targets', async () => {
    const tapped: string[] = [];
    const tap = tapper(tapped);
    const guest = await suite.open(375, {
      url: `${suite.origin}/book`,
      prepare: (page) => page.addInitScript(WATCH_LAYOUT),
    });
    const { page, traffic } = guest;
    const widget = widgetOf(page);
    expect(
      await page.evaluate(() => (globalThis as any).matchMedia('(pointer: coarse)').matches),
      'a touch screen',
    ).toBe(true);
    // Drawn from the first paint at its size: loading the month and the items moves nothing on the page.
    expect(await layoutShift(page), 'the page does not move while the widget loads').toBeLessThan(0.02);
    await screenshot(page, 'touch-375-1-calendar');
    await audit(page, 'touch: calendar');

    // A nightly stay: check-in and check-out tapped on the calendar, which searches.
    const start = fromToday(20);
    const end = fromToday(23);
    await pickDates(page, start, end, { press: tap });
    const cabin = resultItem(page, 'Lakeside Cabin');
    await cabin.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect(await textOf(cabin), 'the stay counts its nights').toMatch(/3 nights · \$\d/);
    const range = new Intl.DateTimeFormat('en-CA', {
      weekday: 'short',
      month: 'short',
      day: 'numeric',
    }).formatRange(new Date(`${start}T12:00:00`), new Date(`${end}T12:00:00`));
    expect(await textOf(calendarOf(page)), 'the dates chosen, in words').toContain(normalize(range));
    await screenshot(page, 'touch-375-2-results');
    await audit(page, 'touch: results');
    await tap(cabin.getByRole('button', { name: 'Add to cart' }));
    await cartLine(page, 'Lakeside Cabin').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });

    // An hourly slot: the paddleboard's hours are buttons; one tapped gives its price and "Add to cart".
    const board = resultItem(page, 'Stand-up Paddleboard');
    const slot = board.getByRole('group').getByRole('button', { name: '10:00 a.m.', exact: true });
    await tap(slot);
    await expect.poll(() => slot.getAttribute('aria-pressed'), { timeout: STEP_TIMEOUT }).toBe('true');
    const addBoard = board.getByRole('button', { name: 'Add to cart' });
    await addBoard.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect(await textOf(board), 'the hour, its length and its price').toMatch(/10:00 a\.m\. · 1 hour · \$\d/);
    await screenshot(page, 'touch-375-3-slot');
    await audit(page, 'touch: slot chosen');
    await tap(addBoard);
    await cartLine(page, 'Stand-up Paddleboard').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect(await textOf(cartLine(page, 'Stand-up Paddleboard')), 'the cart says the hours').toMatch(
      /10:00 a\.m\. – 11:00 a\.m\./,
    );

    // A package, and its optional part opted into by tapping its label.
    const optFrom = traffic.api.length;
    await tap(resultItem(page, 'Cabin & Breakfast Getaway').getByRole('button', { name: 'Add to cart' }));
    const packageLine = cartLine(page, 'Cabin & Breakfast Getaway');
    await packageLine.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const optIn = packageLine.locator('label').filter({ hasText: /^Add / });
    await tap(optIn);
    await expect
      .poll(
        async () => {
          await traffic.settle();
          const session = lastSession(traffic, optFrom);
          return Object.values(session?.item ?? {}).some((line: any) => line.parent && line.opt === 'in');
        },
        { timeout: STEP_TIMEOUT, message: 'the optional part is opted into through the API' },
      )
      .toBe(true);
    const cartText = await textOf(cartOf(page));
    expect(cartText, 'the cart writes no raw date').not.toMatch(RAW_DATE);
    await screenshot(page, 'touch-375-4-cart');
    await audit(page, 'touch: cart');

    // Checkout: the fields are typed, the buttons tapped.
    await tap(widget.getByRole('button', { name: 'Book now' }));
    const form = await bookingForm(page);
    await form.getByLabel('Full name').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await form.getByLabel('Full name').fill('Tapping Guest');
    await form.getByLabel('Email').fill('tap@example.com');
    if ((await form.getByLabel('Country').count()) === 1) await setValue(form.getByLabel('Country'), 'CA');
    if ((await form.getByLabel('Expected arrival').count()) === 1)
      await setValue(form.getByLabel('Expected arrival'), 'evening');
    await screenshot(page, 'touch-375-5-form');
    await audit(page, 'touch: form');
    const session = lastSession(traffic);
    await tap(widget.getByRole('button', { name: 'Confirm booking' }));
    await widget.getByRole('heading', { name: 'Booking confirmed' }).waitFor({ timeout: STEP_TIMEOUT });
    await screenshot(page, 'touch-375-6-confirmation');
    await audit(page, 'touch: confirmation');

    // "Add to your calendar": an iCalendar file of the stay, all-day dates with the check-out as the end.
    const file = widget.getByRole('link', { name: /add to your calendar/i });
    const [download] = await Promise.all([page.waitForEvent('download'), tap(file)]);
    const ics = readFileSync((await download.path()) as string, 'utf8');
    const events = new ICAL.Component(ICAL.parse(ics))
      .getAllSubcomponents('vevent')
      .map((event) => new ICAL.Event(event));
    expect(events.map((event) => event.summary).sort()).toEqual(
      mainLines(session)
        .map((line) => line.name)
        .sort(),
    );
    const stay = events.find((event) => event.summary === 'Lakeside Cabin');
    expect(stay?.startDate.toString(), 'the stay starts on its check-in date').toBe(start);
    expect(stay?.startDate.isDate, 'an all-day date').toBe(true);
    expect(stay?.endDate.toString(), 'and ends on its check-out date (exclusive)').toBe(end);
    const hour = events.find((event) => event.summary === 'Stand-up Paddleboard');
    expect(hour?.startDate.isDate, 'the slot is at its hours').toBe(false);
    expect((hour?.endDate.toUnixTime() ?? 0) - (hour?.startDate.toUnixTime() ?? 0)).toBe(3600);

    expect.soft(tapped.length, 'every step was a tap').toBeGreaterThan(8);
    await expectCleanTraffic(guest);
  }, 180_000);

  it.each([375, 1280])(
    'draws itself at %i px at its final height from its first paint',
    async (width) => {
      const guest = await suite.open(width, {
        url: `${suite.origin}/book`,
        prepare: (page) => page.addInitScript(WATCH_LAYOUT),
      });
      const { page } = guest;
      // Loaded: the items are in ("Who is coming" has its quantities) and nothing is out.
      const party = widgetOf(page).getByRole('region', { name: 'Who is coming' }).getByRole('spinbutton');
      await party.first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
      await widgetOf(page).locator('[aria-busy="false"]').first().waitFor({ state: 'attached' });
      await page.waitForLoadState('networkidle');
      const heights: number[] = await page.evaluate(() => (globalThis as any).__widgetHeights);
      expect(heights.length, 'heights recorded').toBeGreaterThan(0);
      expect(
        new Set(heights).size,
        `one height from the first paint to the last (${heights.join(' → ')} px)`,
      ).toBe(1);
      expect(await layoutShift(page), 'the page does not move while the widget loads').toBeLessThan(0.02);
      await screenshot(page, `touch-${width}-first-paint`);
      await audit(page, `touch: loaded at ${width}`);
      await expectCleanTraffic(guest);
    },
    60_000,
  );

  it('opens a deep link on its item and dates: the calendar is for the item, the stay searched at once', async () => {
    // Clear of the cabin's closed days at Christmas.
    const start = fromToday(45);
    const guest = await suite.open(375, { url: `${suite.origin}/book?item=1&start=${start}&nights=3` });
    const { page } = guest;
    const cabin = resultItem(page, 'Lakeside Cabin');
    await cabin.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect(await textOf(cabin)).toMatch(/3 nights · \$\d/);
    expect(
      await widgetOf(page)
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { level: 3 }) })
        .count(),
      'only the linked item',
    ).toBe(1);
    const calendar = await textOf(calendarOf(page));
    expect(calendar, 'the calendar is for the linked item').toContain('Dates for Lakeside Cabin');
    expect(calendar, 'and shows the stay chosen').toMatch(/ · 3 nights/);
    await screenshot(page, 'touch-375-deep-link');
    await audit(page, 'touch: deep link');
    await expectCleanTraffic(guest);
  }, 90_000);
});
