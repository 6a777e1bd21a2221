import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { audit } from '#test/support/accessibility.ts';
import { type Guest, IMAGE_ORIGIN, screenshot } from '#test/support/chromium.ts';
import {
  embeddingPage,
  startThirdPartySite,
  stopThirdPartySite,
  type ThirdPartySite,
} from '#test/support/third-party-site.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import { cartMatchesApi, mainLines, searchAndRead, softPoll } from '#test/support/widget-checks.ts';
import {
  becomesVisible,
  calendarOf,
  cartLine,
  formatMoney,
  resultItem,
  STEP_TIMEOUT,
  search,
  textOf,
  widgetIdle,
} from '#test/support/widget-page.ts';
import { staffGet } from '#test/support/widget-service.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 14 §3: a business's own site (another site than the API: localhost against 127.0.0.1) embeds the
// widget with the two-line snippet. Browsers block third-party cookies, so cookies are cleared before
// every API call here: the session can only travel as the `session_id` parameter, kept in sessionStorage.
// CORS comes from the tenant's `settings.cors_origins`: the partner site is in it, another site is not.
let partner: ThirdPartySite;
let stranger: ThirdPartySite;
let tenant: Record<string, any>;
let money: (amount: string | number) => string;

beforeAll(async () => {
  partner = await startThirdPartySite();
  stranger = await startThirdPartySite();
  tenant = makeWidgetTenant((raw) => {
    raw.settings.cors_origins = [...raw.settings.cors_origins, partner.origin];
  });
  money = (amount) => formatMoney(amount, tenant.locale.id, tenant.locale.currency);
});

afterAll(async () => {
  await stopThirdPartySite(partner);
  await stopThirdPartySite(stranger);
});

// The suite's hooks run after the sites start and (vitest runs afterAll hooks in reverse) before they stop.
const suite = setUpWidgetSuite({ tenant: () => tenant, name: 'third-party' });

beforeAll(() => {
  partner.setHtml(embeddingPage(suite.origin, 'Partner site'));
  stranger.setHtml(embeddingPage(suite.origin, 'Some other site'));
});

/** The widget's notice when its calls cannot reach the API. */
const unreachable = /could not be reached|not available/i;

/**
 * Whether a guest can search: the widget's script ran (a module script runs before the load event that
 * page.goto waits for, or never when the browser refuses it to the site) and the widget's calendar is
 * usable rather than its notice that the API cannot be reached.
 */
async function canSearch({ page, widget }: Guest): Promise<boolean> {
  if (!(await page.evaluate(() => (globalThis as any).customElements.get('booking-widget') !== undefined)))
    return false;
  // The calendar is usable once its month and the items are in (busy until then, and for good when not).
  const usable = calendarOf(page).and(page.locator('[aria-busy="false"]'));
  await becomesVisible(usable.or(widget.getByRole('alert').filter({ hasText: unreachable })), 15_000);
  return usable.isVisible();
}

/** Searches, then waits for what must follow: the results, or the notice that the call was refused. */
async function searchAndWait({ page, widget }: Guest): Promise<void> {
  await search(page, '2027-05-31', '2027-06-02');
  await becomesVisible(
    resultItem(page, 'Touring Kayak').or(widget.getByRole('alert').filter({ hasText: unreachable })),
    STEP_TIMEOUT,
  );
}

describe('the booking widget on a third-party page', () => {
  it('books from the two-line snippet on another site, the session travelling as session_id', async () => {
    const guest = await suite.open(1280, { url: partner.url, blockCookies: true });
    const { page, traffic, widget } = guest;
    expect(await widget.getAttribute('api')).toBe(suite.apiBase);
    await audit(page, 'third-party start');

    await searchAndRead(page, traffic, '2027-05-24', '2027-05-26');
    const addFrom = traffic.api.length;
    await resultItem(page, 'Touring Kayak').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Touring Kayak').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await resultItem(page, 'Mountain Bike').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Mountain Bike').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const session = await cartMatchesApi(page, traffic, { from: addFrom, step: 'third-party cart', money });
    expect(
      mainLines(session)
        .map((line) => line.name)
        .sort(),
    ).toEqual(['Mountain Bike', 'Touring Kayak']);

    const stored = await page.evaluate(() => Object.values((globalThis as any).sessionStorage));
    expect(stored, "the session id is kept in the page's sessionStorage").toContain(session.id);
    const withCookie = traffic.api.filter((exchange) => /session_id=/.test(exchange.cookie ?? ''));
    expect(
      withCookie.map((exchange) => exchange.path),
      'no call relies on the session cookie',
    ).toEqual([]);

    // A reload keeps the cart: the id comes back from sessionStorage.
    const reloadFrom = traffic.api.length;
    await page.reload();
    await softPoll(
      () => becomesVisible(cartLine(page, 'Touring Kayak'), STEP_TIMEOUT),
      true,
      'the cart survives a reload (the session id kept in sessionStorage)',
      1000,
    );
    await traffic.settle();
    const reread = traffic.api
      .slice(reloadFrom)
      .filter((exchange) => exchange.path.startsWith('booking/session'));
    expect
      .soft(
        reread.map((exchange) => exchange.sessionParam),
        'after a reload the cart is read with the kept session id',
      )
      .toContain(session.id);

    // Book through the third-party page.
    if ((await cartLine(page, 'Touring Kayak').count()) === 0) {
      await searchAndRead(page, traffic, '2027-05-24', '2027-05-26');
      await resultItem(page, 'Touring Kayak').getByRole('button', { name: 'Add to cart' }).click();
      await cartLine(page, 'Touring Kayak').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    }
    await widget.getByRole('button', { name: 'Book now' }).click();
    await widget
      .getByRole('button', { name: 'Confirm booking' })
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await widget.getByLabel('Full name').fill('Partner Guest');
    await widget.getByLabel('Email').fill('partner.guest@example.com');
    const createFrom = traffic.api.length;
    await widget.getByRole('button', { name: 'Confirm booking' }).click();
    await expect
      .poll(
        async () => {
          await traffic.settle();
          return traffic.api.slice(createFrom).find((exchange) => exchange.path === 'booking/create')?.status;
        },
        { timeout: STEP_TIMEOUT, message: 'booking/create from the third-party page' },
      )
      .toBe(200);
    const create = traffic.api.slice(createFrom).find((exchange) => exchange.path === 'booking/create');
    const code: string = create?.json.booking.id;
    expect(create?.sessionParam, 'booking/create carries the session_id parameter').toBeTruthy();
    expect(create?.cookie ?? '', 'booking/create sends no session cookie').not.toMatch(/session_id=/);
    await widget.getByText(code).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect
      .soft(await textOf(widget), 'the confirmation shows the total')
      .toContain(money(create?.json.booking.total));
    await screenshot(page, 'third-party-1280-confirmation');
    const index = await staffGet(suite.apiBase, 'booking/index');
    const row = Object.values(index['booking/index'] ?? {}).find((entry: any) => entry.code === code) as any;
    expect(row?.customer_name, `booking ${code} in booking/index`).toBe('Partner Guest');

    // Back on the page after booking: a fresh cart, not the ended session's error.
    const afterFrom = traffic.api.length;
    await page.reload();
    await calendarOf(page)
      .and(page.locator('[aria-busy="false"]'))
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    // Started: the catalogue is in and whatever the widget keeps has been read.
    await widgetIdle(page);
    await expect
      .poll(
        async () => {
          await traffic.settle();
          return traffic.api.slice(afterFrom).some((exchange) => exchange.path === 'item');
        },
        { timeout: STEP_TIMEOUT, message: "the reload's catalogue answer is recorded" },
      )
      .toBe(true);
    expect
      .soft(
        traffic.api
          .slice(afterFrom)
          .filter((exchange) => exchange.status >= 400)
          .map((e) => `${e.path} ${e.status}`),
        'after booking, a reload asks nothing of the ended session',
      )
      .toEqual([]);
    expect
      .soft(await textOf(widget), 'after booking, a reload shows no expired hold')
      .not.toMatch(/expired/i);

    // Only the API, its images and the page's own document.
    const hosts = new Set(traffic.requests.map((request) => new URL(request.url).origin));
    expect([...hosts].sort()).toEqual(expect.arrayContaining([suite.origin, partner.origin]));
    for (const host of hosts)
      expect([suite.origin, partner.origin, IMAGE_ORIGIN], `a request to ${host}`).toContain(host);
    const fromPartner = traffic.requests.filter(
      (request) => request.url.startsWith(partner.origin) && request.resourceType !== 'document',
    );
    expect(
      fromPartner.map((request) => request.url),
      'the widget asks the partner site for nothing',
    ).toEqual([]);
    await expectCleanTraffic(guest);
  }, 150_000);

  it('cannot be used from a site that is not in cors_origins', async () => {
    // What the API answers each site, as a browser's CORS check reads it.
    const allowed = await fetch(`${suite.apiBase}/item?start_date=20270531&end_date=20270602`, {
      headers: { Origin: partner.origin },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(partner.origin);
    const refused = await fetch(`${suite.apiBase}/item?start_date=20270531&end_date=20270602`, {
      headers: { Origin: stranger.origin },
    });
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    const guest = await suite.open(1280, { url: stranger.url, blockCookies: true, waitForWidget: false });
    const { page, traffic, widget } = guest;
    if (await canSearch(guest)) await searchAndWait(guest);
    await traffic.settle();
    expect(
      await resultItem(page, 'Touring Kayak').count(),
      'no results reach a site outside cors_origins',
    ).toBe(0);
    expect(await widget.getByRole('button', { name: 'Add to cart' }).count()).toBe(0);
    const sessions = traffic.api.filter((exchange) => exchange.path.startsWith('booking/session'));
    expect(sessions, 'no cart from a site outside cors_origins').toEqual([]);
    await screenshot(page, 'third-party-refused-origin');
    expect(traffic.blocked, 'requests to other hosts').toEqual([]);

    // Even with the widget's script in hand (here its answer is let through to this site), the API's
    // answers are not: the browser's CORS check keeps results and carts away from the site.
    const scripted = await suite.open(1280, {
      url: stranger.url,
      blockCookies: true,
      waitForWidget: false,
      prepare: (p) =>
        p.route(`${suite.origin}/widget/**`, async (route) => {
          const response = await route.fetch();
          return route.fulfill({
            response,
            headers: { ...response.headers(), 'access-control-allow-origin': '*' },
          });
        }),
    });
    await expect
      .poll(async () => (await textOf(scripted.widget)).length, {
        timeout: 15_000,
        message: 'the widget renders once its script is let through',
      })
      .toBeGreaterThan(0);
    if (await canSearch(scripted)) await searchAndWait(scripted);
    await scripted.traffic.settle();
    expect(await resultItem(scripted.page, 'Touring Kayak').count(), 'no results reach the site').toBe(0);
    expect(await scripted.widget.getByRole('button', { name: 'Add to cart' }).count()).toBe(0);
    expect(
      scripted.traffic.api.filter((exchange) => exchange.path.startsWith('booking/session')),
      'no cart reaches the site',
    ).toEqual([]);
    await screenshot(scripted.page, 'third-party-refused-origin-api');
  }, 120_000);
});
