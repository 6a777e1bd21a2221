import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot } from '#test/support/chromium.ts';
import { STEP_TIMEOUT, widgetOf } from '#test/support/widget-page.ts';
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
