import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { PAGE_HELPERS } from './page-helpers.ts';
import { type Traffic, watchTraffic } from './traffic.ts';
import { widgetOf } from './widget-page.ts';

// Debian's chromium for the browser tests: launching it, opening a guest's window on a page, screenshots.

/** Debian's chromium: the tests never download a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Where the browser tests write their screenshots (git-ignored). */
export const ARTIFACTS_DIR = 'test/artifacts/widget';

/** Launches Debian's chromium headless, failing with the way to install it when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No chromium at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
}

let workerBrowser: Promise<Browser> | undefined;

/**
 * This worker's chromium, launched on first use and kept for every browser file the worker runs after (the
 * service project shares a worker's modules between its files). Ten launches with a page each cost 4.4 s of
 * CPU, ten contexts of one browser 1.7 s; a context keeps a file as apart from the others as a browser of its
 * own would (cookies, storage, cache, permissions). Playwright ends it, and removes its profile, when the
 * worker exits; one that crashed is launched anew.
 */
export function workerChromium(): Promise<Browser> {
  if (!workerBrowser) {
    const launching = launchChromium();
    const forget = () => {
      if (workerBrowser === launching) workerBrowser = undefined;
    };
    launching.then((browser) => browser.on('disconnected', forget), forget);
    workerBrowser = launching;
  }
  return workerBrowser;
}

/** Closes every context of the browser, and with them their pages: what one file opened, the next never sees. */
export const closeContexts = (browser: Browser): Promise<unknown> =>
  Promise.all(browser.contexts().map((context) => context.close().catch(() => undefined)));

/**
 * The worker's chromium for the tests of the file that calls it: ready before them, and every context the
 * file opened closed after them.
 */
export function setUpChromium(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await workerChromium();
  }, 60_000);
  afterAll(async () => {
    if (browser) await closeContexts(browser);
  });
  return {
    get browser() {
      if (!browser) throw new Error('chromium has not launched');
      return browser;
    },
  };
}

/** Writes a full-page screenshot into the artifacts folder and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Where the demo tenant's item images live: the tests answer them with a generated PNG. */
export const IMAGE_ORIGIN = 'https://loonlake.example.com';

/** A guest's browser window on a page with the widget, its traffic recorded and policed. */
export interface Guest {
  context: BrowserContext;
  page: Page;
  traffic: Traffic;
  widget: Locator;
}

/**
 * Opens a page in a fresh browser context of the given width, with the page helpers installed and its
 * traffic watched, and waits until the widget's calendar has its month and the items.
 */
export async function openGuest(
  browser: Browser,
  options: {
    url: string;
    apiBase: string;
    width: number;
    allowedOrigins?: string[];
    blockCookies?: boolean;
    /** Runs before the page loads (routes, clocks). */
    prepare?: (page: Page) => Promise<unknown>;
    /** Whether to wait for the calendar (default true). */
    waitForWidget?: boolean;
  },
): Promise<Guest> {
  const phone = options.width <= 400;
  const context = await browser.newContext({
    viewport: { width: options.width, height: phone ? 812 : 900 },
    // A phone-sized window is a phone: its meta viewport counts and it has touch.
    isMobile: phone,
    hasTouch: phone,
    locale: 'en-US',
    timezoneId: 'America/Toronto',
  });
  await context.addInitScript({ content: PAGE_HELPERS });
  const traffic = await watchTraffic(context, {
    apiBase: options.apiBase,
    allowedOrigins: [new URL(options.url).origin, ...(options.allowedOrigins ?? [])],
    imageOrigin: IMAGE_ORIGIN,
    blockCookies: options.blockCookies,
  });
  const page = await context.newPage();
  await options.prepare?.(page);
  await page.goto(options.url);
  if (!(await page.evaluate(() => typeof (globalThis as any).__e2e === 'object'))) {
    throw new Error('the page helpers did not install (a syntax error in PAGE_HELPERS?)');
  }
  const widget = widgetOf(page);
  if (options.waitForWidget !== false) {
    // The calendar is drawn at once; it is usable when its month and the items are in.
    await widget
      .getByRole('region', { name: 'Choose your dates' })
      .and(page.locator('[aria-busy="false"]'))
      .waitFor({ state: 'visible', timeout: 30_000 });
  }
  return { context, page, traffic, widget };
}
