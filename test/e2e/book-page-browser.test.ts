import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot } from '#test/support/chromium.ts';
import {
  calendarOf,
  cartLine,
  fromToday,
  pickDates,
  resultItem,
  STEP_TIMEOUT,
  showMonth,
  widgetOf,
} from '#test/support/widget-page.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 32: the hosted booking page `/book` of the demo tenant as it is, in Chromium at a phone's and a
// desktop's width: it does not move while the widget renders, every request it makes succeeds (the demo
// pictures included), axe finds nothing on it, and a deep link opens on its item and dates, searched.
const suite = setUpWidgetSuite({ tenantFile: 'infra/tenants/demo.json', name: 'book-page' });

/** Sums the page's layout shifts not caused by input, as Lighthouse's CLS does within one window. */
const LAYOUT_SHIFTS = `
  globalThis.__shifts = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) globalThis.__shifts.push(entry.value);
  }).observe({ type: 'layout-shift', buffered: true });
`;

/** A date `days` from now, YYYY-MM-DD (UTC: far enough ahead that the zone does not matter). */
const daysAhead = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Opens a page of the service and records every request that failed or was answered 4xx/5xx. */
async function openPage(width: number, path: string) {
  const guest = await suite.open(width, {
    url: `${suite.origin}${path}`,
    waitForWidget: false,
    prepare: (page) => page.addInitScript({ content: LAYOUT_SHIFTS }),
  });
  const failures: string[] = [];
  guest.page.on('requestfailed', (request) =>
    failures.push(`${request.url()} ${request.failure()?.errorText}`),
  );
  guest.page.on('response', (response) => {
    if (response.status() >= 400) failures.push(`${response.url()} ${response.status()}`);
  });
  return { ...guest, failures };
}

/** The widget's text as rendered in its shadow tree, spaces collapsed. */
const widgetText = (page: Page): Promise<string> =>
  page.evaluate(() =>
    (((globalThis as any).document.querySelector('booking-widget')?.shadowRoot?.textContent as string) ?? '')
      .replace(/\s+/g, ' ')
      .trim(),
  );

/** Waits until the widget has shown what it loaded (it says "Loading…" until then). */
async function widgetReady(page: Page) {
  await expect.poll(() => widgetText(page), { timeout: STEP_TIMEOUT }).toMatch(/\S/);
  await expect
    .poll(async () => (await widgetText(page)).includes('Loading'), { timeout: STEP_TIMEOUT })
    .toBe(false);
  await page.waitForLoadState('networkidle');
}

const layoutShift = (page: Page): Promise<number> =>
  page.evaluate(() => ((globalThis as any).__shifts as number[]).reduce((sum, value) => sum + value, 0));

describe('the booking page in a browser', () => {
  for (const width of [375, 1280]) {
    it(`at ${width} px: the page holds still, every request succeeds and axe finds nothing`, async () => {
      const { page, failures } = await openPage(width, '/book');
      await widgetReady(page);
      // Scrolled through, so every lazy picture in the results and the page's end are loaded too.
      await page.evaluate(() =>
        (globalThis as any).scrollTo(0, (globalThis as any).document.body.scrollHeight),
      );
      await page.waitForLoadState('networkidle');
      expect(await layoutShift(page), 'layout shift while the widget rendered').toBeLessThan(0.05);
      const axe = await new AxeBuilder({ page }).analyze();
      expect(axe.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
      expect(failures).toEqual([]);
      await screenshot(page, `book-page-${width}`);
    });
  }

  it('opens a deep link on its item and dates, searched, with the nights counted', async () => {
    const start = daysAhead(60);
    const { page, failures } = await openPage(375, `/book?item=1&start=${start}&nights=3`);
    await widgetReady(page);
    const widget = widgetOf(page);
    await expect
      .poll(() => widgetText(page), { timeout: STEP_TIMEOUT })
      .toMatch(/Lakeside Cabin[\s\S]*3 nights/);
    expect(await widget.getByRole('button', { name: /Add .*to (your )?cart/i }).count()).toBeGreaterThan(0);
    const picture = widget.getByRole('img', { name: 'Lakeside Cabin on the north shore' }).first();
    await picture.scrollIntoViewIfNeeded();
    await expect
      .poll(() => picture.evaluate((image: any) => image.complete && image.naturalWidth), {
        timeout: STEP_TIMEOUT,
      })
      .toBe(480);
    expect(await layoutShift(page)).toBeLessThan(0.05);
    expect(failures).toEqual([]);
    await screenshot(page, 'book-page-deep-link-375');
  });
});

// Issue 41, item 5: a single item's calendar and the booking form, as a guest with a screen reader and a
// guest at a desktop's width meet them.
describe("a single item's calendar and the booking form", () => {
  const CANOE = 'Guided Sunrise Canoe Tour';
  /** Each day button's accessible name in the month shown, once its month is in (aria-busy false). */
  const dayNames = async (page: Page): Promise<string[]> => {
    await calendarOf(page).and(page.locator('[aria-busy="false"]')).waitFor({ timeout: STEP_TIMEOUT });
    return calendarOf(page)
      .getByRole('grid')
      .getByRole('button')
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label') ?? ''));
  };
  /** Days that do not end in a state the calendar knows, and Mondays (the tour's closed day) said open. */
  const wrongNames = (names: string[]) =>
    names.filter(
      (name) =>
        !/, (past|available|not available)$/.test(name) ||
        (/^Monday/.test(name) && /, available$/.test(name)),
    );

  it('names every day by its real state once its month is in, and a month that failed as not known', async () => {
    const { page, failures } = await openPage(1280, '/book?item=6');
    await widgetReady(page);
    // The month after next fails once, as a dropped connection would; "Try again" then loads it.
    const failed = fromToday(62).slice(0, 7);
    let dropped = 0;
    await page.route(`**/item/cal?*start_date=${failed}-01*`, (route) =>
      dropped++ ? route.continue() : route.abort('connectionreset'),
    );
    const seen: Record<string, string[]> = {};
    for (const days of [0, 31]) {
      await showMonth(page, fromToday(days));
      const names = await dayNames(page);
      expect(names.length).toBeGreaterThanOrEqual(28);
      seen[fromToday(days).slice(0, 7)] = wrongNames(names);
    }
    expect(seen).toEqual({ [fromToday(0).slice(0, 7)]: [], [fromToday(31).slice(0, 7)]: [] });

    await calendarOf(page).getByRole('button', { name: 'Next month' }).click();
    await calendarOf(page).getByText('The calendar could not be loaded.').waitFor({ timeout: STEP_TIMEOUT });
    const unknown = await dayNames(page);
    expect(unknown.filter((name) => !/, (past|availability not known)$/.test(name))).toEqual([]);
    await calendarOf(page).getByRole('button', { name: 'Try again' }).click();
    await calendarOf(page)
      .getByText('The calendar could not be loaded.')
      .waitFor({ state: 'detached', timeout: STEP_TIMEOUT });
    expect(wrongNames(await dayNames(page))).toEqual([]);
    expect(dropped).toBe(2);
    expect(failures.filter((failure) => !failure.includes(`start_date=${failed}-01`))).toEqual([]);
  });

  it('puts the booking policy box beside its words at 1280 px', async () => {
    const { page } = await openPage(1280, '/book?item=6');
    await widgetReady(page);
    // A Tuesday about three weeks ahead: never the tour's closed Monday, always inside its booking window.
    let day = 21;
    while (new Date(`${fromToday(day)}T12:00:00`).getDay() !== 2) day += 1;
    await pickDates(page, fromToday(day), fromToday(day));
    await resultItem(page, CANOE).getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, CANOE).waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const widget = widgetOf(page);
    await widget.getByRole('button', { name: 'Book now' }).click();
    const box = widget.getByRole('checkbox', { name: 'I agree to the booking policy' });
    await box.waitFor({ timeout: STEP_TIMEOUT });
    const label = widget.locator('label[for="field-customer_tos_agree"]');
    const gap = await label.evaluate(
      (element, boxRect) => {
        // The words themselves, not the label's box (which a layout may stretch).
        const range = (globalThis as any).document.createRange();
        range.selectNodeContents(element);
        const words = range.getBoundingClientRect();
        return {
          between: Math.round(words.left - (boxRect.x + boxRect.width)),
          sameLine: Math.abs(words.top + words.height / 2 - (boxRect.y + boxRect.height / 2)) < 12,
        };
      },
      (await box.boundingBox()) as { x: number; y: number; width: number; height: number },
    );
    expect(gap.sameLine).toBe(true);
    expect(gap.between).toBeGreaterThanOrEqual(0);
    expect(gap.between).toBeLessThanOrEqual(24);
    await screenshot(page, 'book-page-policy-box-1280');
  });
});
