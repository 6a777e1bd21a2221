import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations } from '#test/support/accessibility.ts';
import { setUpChromium } from '#test/support/chromium.ts';

// Issue 42 item 7: the widget tests' audit runs axe-core in its quicker legacy mode on a page without
// frames, and in its default mode on a page with frames. Both are shown finding what they must: a control
// without a name in a shadow root, and one inside a frame of another origin (which the legacy mode does not
// reach). The pages are made up here and answered by the browser's router: no service, no network.

const SITE = 'http://site.test';
const OTHER = 'http://other.test';

/** A page whose shadow root holds a button with a name, and one without unless `clean`. */
const shadowPage = (clean: boolean) => `<!doctype html><html lang="en"><head><title>Audit</title></head>
<body><main><h1>Audit</h1><div id="host"></div></main><script>
document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML =
  '<button type="button">Named</button>${clean ? '' : '<button type="button"></button>'}';
</script></body></html>`;

/** A page that frames a page of another origin. */
const framingPage = `<!doctype html><html lang="en"><head><title>Framing</title></head>
<body><main><h1>Framing</h1><iframe title="Booking" src="${OTHER}/framed"></iframe></main></body></html>`;

const chromium = setUpChromium();

/** Opens `path` of the made-up site, every request answered from `pages` (by origin and path). */
async function openMadeUp(path: string, pages: Record<string, string>): Promise<Page> {
  const context = await chromium.browser.newContext();
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    const body = pages[`${url.origin}${url.pathname}`];
    return body === undefined
      ? route.fulfill({ status: 404, body: 'not here' })
      : route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body });
  });
  const page = await context.newPage();
  await page.goto(`${SITE}${path}`);
  return page;
}

describe("the widget tests' axe audit", () => {
  it('finds a control without a name in a shadow root of a page without frames, and nothing on a clean one', async () => {
    const spoiled = await openMadeUp('/', { [`${SITE}/`]: shadowPage(false) });
    expect(spoiled.frames(), 'a page without frames (the legacy mode)').toHaveLength(1);
    const found = await axeViolations(spoiled);
    expect(found.map((violation) => violation.split(' ')[0])).toEqual(['button-name']);
    expect(found[0], 'found inside the shadow root').toContain('#host');
    await spoiled.context().close();

    const clean = await openMadeUp('/', { [`${SITE}/`]: shadowPage(true) });
    expect(await axeViolations(clean)).toEqual([]);
    await clean.context().close();
  }, 60_000);

  it('finds a control without a name inside a frame of another origin', async () => {
    const page = await openMadeUp('/', {
      [`${SITE}/`]: framingPage,
      [`${OTHER}/framed`]: shadowPage(false),
    });
    await expect
      .poll(() =>
        page
          .frames()
          .find((frame) => frame.url() === `${OTHER}/framed`)
          ?.locator('#host')
          .count(),
      )
      .toBe(1);
    // Both pages have a `main`, which axe also reports (landmark-unique) once it reads the frame.
    const unnamed = (await axeViolations(page)).filter((violation) => violation.startsWith('button-name '));
    expect(unnamed).toHaveLength(1);
    expect(unnamed[0], 'found inside the framed page').toContain('iframe');
    await page.context().close();
  }, 60_000);
});
