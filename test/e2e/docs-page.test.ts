import { describe, expect, it } from 'vitest';
import { setUpChromium } from '#test/support/chromium.ts';
import { setUpService } from '#test/support/local-runner.ts';

// Issue 13: the API reference page renders in a real browser without network access. Debian's chromium
// (never a downloaded browser) opens the page of a real `npm start`, and every request for anything but
// the service itself is refused: Swagger UI, its styles and the document must all come from the service.
const service = setUpService('docs-page');
const chromium = setUpChromium();

describe('the API reference page', () => {
  it('renders every operation from the service alone, without network access', async () => {
    const origin = new URL(service.base).origin;
    const page = await chromium.browser.newPage();
    const aborted: string[] = [];
    const failed: string[] = [];
    const errors: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url === origin || url.startsWith(`${origin}/`)) return route.continue();
      aborted.push(url);
      return route.abort('blockedbyclient');
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`));

    const response = await page.goto(`${service.base}/docs`);
    expect(response?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
    await expect.poll(() => page.locator('.info .title').innerText()).toContain('Booking API 3.0');
    expect(await page.locator('.info .title').isVisible()).toBe(true);

    const operations = await page.locator('.opblock').count();
    expect(operations).toBeGreaterThanOrEqual(30);
    const tags = await page
      .locator('.opblock-tag')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-tag')));
    expect(tags).toEqual(expect.arrayContaining(['item', 'booking']));

    await page.screenshot({ path: '/tmp/docs-page.png', fullPage: true });
    expect(aborted).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
