import type { Locator, Page, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { audit, auditAlsoAtPhoneWidth, liveRegionTexts } from '#test/support/accessibility.ts';
import { type Guest, screenshot } from '#test/support/chromium.ts';
import { expectCleanTraffic, FAKE_HEADER } from '#test/support/traffic.ts';
import { cartMatchesApi, countMatches, searchAndRead, softPoll } from '#test/support/widget-checks.ts';
import {
  becomesVisible,
  cartLine,
  cartOf,
  formatMoney,
  refusalShown,
  resultItem,
  STEP_TIMEOUT,
  search,
  showMonth,
  textOf,
} from '#test/support/widget-page.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 14: the booking widget, driven in Debian's chromium through the page `npm start` serves at `/`, by
// the labels and roles the issue names, as a guest would. The tenant is the demo tenant (Loon Lake Lodge,
// en_CA, CAD, 15-minute holds) with per-client limits raised, since every browser here is one client.
// Here the answers 409 and 429: real ones from the API, and made-up ones from an API's error envelope.

const tenant = makeWidgetTenant();
const money = (amount: string | number) => formatMoney(amount, tenant.locale.id, tenant.locale.currency);
const suite = setUpWidgetSuite({ tenant, name: 'refusals' });
const { open } = suite;
let errorTemplate: any;

/** What the live regions say now that they did not say before. */
const announcedSince = async (page: Page, before: string[]): Promise<string> =>
  (await liveRegionTexts(page)).filter((text) => text && !before.includes(text)).join(' ');

beforeAll(async () => {
  // A real error envelope of the API, made into the 429 and 409 answers of the tests that simulate them.
  errorTemplate = await (await fetch(`${suite.apiBase}/item/99999`)).json();
});

describe('the answers 409 and 429 in the booking widget', () => {
  it("shows the API's words, without a retry that would fail the same way, when another guest took the last unit (409)", async () => {
    const first = await open(1280);
    const second = await open(1280);
    for (const guest of [first, second])
      await searchAndRead(guest.page, guest.traffic, '2027-03-01', '2027-03-03');
    await resultItem(first.page, 'Boathouse Loft Suite').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(first.page, 'Boathouse Loft Suite').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });

    const pattern =
      /no longer available|not available|unavailable|sold out|not enough|already (taken|booked|held)/i;
    const before = countMatches(await textOf(second.widget), pattern);
    const from = second.traffic.api.length;
    await resultItem(second.page, 'Boathouse Loft Suite')
      .getByRole('button', { name: 'Add to cart' })
      .click();
    const refusal = async () => {
      await second.traffic.settle();
      return second.traffic.api.slice(from).find((exchange) => exchange.path.startsWith('booking/session'));
    };
    await expect.poll(async () => (await refusal())?.status, { timeout: STEP_TIMEOUT }).toBe(409);
    const words: string = (await refusal())?.json?.request?.error?.details;
    expect(words, 'the API words the refusal for a guest').toMatch(/\w/);
    await expect
      .poll(async () => countMatches(await textOf(second.widget), pattern), {
        timeout: 5000,
        message: 'a clear message for the 409',
      })
      .toBeGreaterThan(before);
    await screenshot(second.page, '1280-409');
    await audit(second.page, '409 message');
    await auditAlsoAtPhoneWidth(second.page, '409 message');
    expect(await textOf(second.widget.getByRole('alert')), "the notice is the API's words").toContain(words);
    const retry = second.widget.getByRole('button', { name: /retry|try again/i });
    expect(await retry.count(), 'no retry: it would be refused the same way').toBe(0);

    // The first guest lets the loft go; the second adds it again and gets it.
    await cartLine(first.page, 'Boathouse Loft Suite')
      .getByRole('button', { name: /remove/i })
      .click();
    await expect
      .poll(() => cartLine(first.page, 'Boathouse Loft Suite').count(), { timeout: STEP_TIMEOUT })
      .toBe(0);
    await resultItem(second.page, 'Boathouse Loft Suite')
      .getByRole('button', { name: 'Add to cart' })
      .click();
    expect(
      await becomesVisible(cartLine(second.page, 'Boathouse Loft Suite'), STEP_TIMEOUT),
      'adding it again gets the loft',
    ).toBe(true);
    await expectCleanTraffic(first);
    await expectCleanTraffic(second);
  }, 150_000);

  /** Answers the first API call that `matches` with an error envelope of the API, as the API would. */
  const answerErrorOnce = (
    page: Page,
    matches: (url: URL, method: string) => boolean,
    error: { status: number; id: string; title: string; details: string; data: object; headers?: object },
  ) => {
    const body = structuredClone(errorTemplate);
    body.request.status = 'ERROR';
    body.request.error = { id: error.id, title: error.title, details: error.details, data: error.data };
    let answered = false;
    return page.route(
      (url) => url.pathname.startsWith('/api/3.0/'),
      async (route: Route) => {
        const request = route.request();
        if (
          answered ||
          request.method() === 'OPTIONS' ||
          !matches(new URL(request.url()), request.method())
        ) {
          return route.fallback();
        }
        answered = true;
        return route.fulfill({
          status: error.status,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            [FAKE_HEADER]: '1',
            ...error.headers,
          },
          body: JSON.stringify(body),
        });
      },
    );
  };

  /** Answers the first API call that `matches` with a 429 (Retry-After 2), as the rate limit does. */
  const answer429Once = (page: Page, matches: (url: URL, method: string) => boolean) =>
    answerErrorOnce(page, matches, {
      status: 429,
      id: 'rate_limited',
      title: 'Too many requests',
      details: 'Too many requests in a short time; try again in 2 seconds',
      data: { limit: 120, retry_after: 2 },
      headers: {
        'retry-after': '2',
        'ratelimit-limit': '120',
        'ratelimit-remaining': '0',
        'ratelimit-reset': '2',
      },
    });

  /** After a 429: a clear message, then a retry (a button, or by itself after Retry-After) that works. */
  async function expectRetryAfter429(guest: Guest, done: Locator, step: string): Promise<void> {
    const { page, widget } = guest;
    await expect
      .poll(async () => /too many|busy|slow down|wait/i.test(await textOf(widget)), {
        timeout: 5000,
        message: `${step}: a clear message for the 429`,
      })
      .toBe(true);
    await screenshot(page, `1280-429-${step}`);
    const retry = widget.getByRole('button', { name: /retry|try again/i });
    // The made-up 429 answers once, so the retry need not sit out its Retry-After first.
    if ((await retry.count()) > 0) await retry.first().click();
    expect(await becomesVisible(done, 10_000), `${step}: the retry works once the limit has passed`).toBe(
      true,
    );
    expect
      .soft(
        /too many|busy|slow down/i.test(await textOf(widget)),
        `${step}: the message goes once the retry worked`,
      )
      .toBe(false);
  }

  it('shows a clear message with a retry when a search is rate limited (429)', async () => {
    const guest = await open(1280);
    const { page } = guest;
    // The month is in first: the refused call is the search the last date runs, not the month's prices.
    await showMonth(page, '2027-03-10');
    await answer429Once(
      page,
      (url, method) => method === 'GET' && /\/api\/3\.0\/item(\/\d+)?\/?$/.test(url.pathname),
    );
    await search(page, '2027-03-10', '2027-03-12');
    await expectRetryAfter429(guest, resultItem(page, 'Touring Kayak'), 'search');
    await expectCleanTraffic(guest);
  }, 120_000);

  const createCall = (url: URL, method: string) =>
    method === 'POST' && /\/api\/3\.0\/booking\/create\/?$/.test(url.pathname);

  /** Search, add the kayak, Book now and fill the form: ready to confirm. */
  async function readyToConfirm(guest: Guest, start: string, end: string): Promise<void> {
    const { page, traffic, widget } = guest;
    await searchAndRead(page, traffic, start, end);
    await resultItem(page, 'Touring Kayak').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Touring Kayak').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await widget.getByRole('button', { name: 'Book now' }).click();
    await widget
      .getByRole('button', { name: 'Confirm booking' })
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await widget.getByLabel('Full name').fill('Retry Guest');
    await widget.getByLabel('Email').fill('retry@example.com');
  }

  it('shows a clear message with a retry when booking is rate limited (429), and the retry books', async () => {
    const guest = await open(1280);
    await readyToConfirm(guest, '2027-03-22', '2027-03-24');
    await answer429Once(guest.page, createCall);
    await guest.widget.getByRole('button', { name: 'Confirm booking' }).click();
    await expectRetryAfter429(guest, guest.widget.getByText(/LOON-\w+/), 'booking');
    await expectCleanTraffic(guest);
  }, 120_000);

  it('shows a clear message with a retry when the booking is still in progress (409 in_progress)', async () => {
    const guest = await open(1280);
    const { page, widget } = guest;
    await readyToConfirm(guest, '2027-03-29', '2027-03-31');
    await answerErrorOnce(page, createCall, {
      status: 409,
      id: 'in_progress',
      title: 'Request in progress',
      details: 'The same Idempotency-Key is still being processed',
      data: {},
    });
    const liveBefore = await liveRegionTexts(page);
    const announced = () => announcedSince(page, liveBefore);
    await widget.getByRole('button', { name: 'Confirm booking' }).click();
    await softPoll(async () => (await announced()) !== '', true, 'a clear message for the 409, announced');
    const message = await announced();
    await screenshot(page, '1280-409-in-progress');
    const retry = widget.getByRole('button', { name: /retry|try again/i });
    const code = widget.getByText(/LOON-\w+/);
    // The widget books by itself (the code shows) or offers a retry: wait for whichever it does.
    await becomesVisible(code.or(retry), STEP_TIMEOUT);
    if (!(await code.first().isVisible())) {
      expect
        .soft(await retry.first().isVisible(), `the 409 in_progress message offers a retry ("${message}")`)
        .toBe(true);
      if ((await retry.count()) > 0) await retry.first().click();
      else await widget.getByRole('button', { name: 'Confirm booking' }).click();
    }
    expect(await becomesVisible(code, STEP_TIMEOUT), 'the retry books').toBe(true);
    await expectCleanTraffic(guest);
  }, 120_000);

  it("shows the API's words when a quantity asks for more than is left (409), the cart keeping what the API holds", async () => {
    const guest = await open(1280);
    const { page, traffic, widget } = guest;
    await searchAndRead(page, traffic, '2027-04-19', '2027-04-21');
    const from = traffic.api.length;
    await resultItem(page, 'Touring Kayak').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Touring Kayak').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const before = await cartMatchesApi(page, traffic, { from, step: 'after adding the kayak', money });
    const liveBefore = await liveRegionTexts(page);
    const alterFrom = traffic.api.length;
    const field = cartLine(page, 'Touring Kayak').getByRole('spinbutton').first();
    expect(await field.count(), 'the kayak line has a quantity field').toBe(1);
    const countdown = cartOf(page).getByRole('timer');
    await field.fill('11');
    // The countdown re-renders the cart every second: what the guest typed must outlive a tick.
    const typedAt = await countdown.textContent();
    await expect.poll(() => countdown.textContent(), { timeout: 5000 }).not.toBe(typedAt);
    expect(await field.inputValue(), 'the typed quantity, after a tick of the countdown').toBe('11');
    await field.press('Tab');
    await expect
      .poll(
        async () => {
          await traffic.settle();
          return traffic.api.slice(alterFrom).find((exchange) => exchange.status === 409)?.json?.request
            ?.error?.id;
        },
        { timeout: STEP_TIMEOUT, message: 'the API refuses 11 kayaks (10 in stock) with a 409' },
      )
      .toBe('unavailable');
    const announced = () => announcedSince(page, liveBefore);
    await softPoll(
      async () => /available|not enough|left|sold out|only/i.test(await announced()),
      true,
      async () => `a clear message for the 409, announced (heard: "${await announced()}")`,
    );
    const message = await announced();
    const details: string = traffic.api.slice(alterFrom).find((exchange) => exchange.status === 409)?.json
      ?.request?.error?.details;
    expect(message, "the API's words, which say to choose fewer").toContain(details);
    expect(
      await widget.getByRole('button', { name: /retry|try again/i }).count(),
      'no retry: the same quantity would be refused again',
    ).toBe(0);
    expect
      .soft(await field.inputValue(), 'the quantity field shows what the cart really holds')
      .toBe(String(before.item['1']?.qty ?? 1));
    expect
      .soft(await textOf(cartOf(page)), 'the cart total is still the held one')
      .toContain(money(before.total));
    await screenshot(page, '1280-409-quantity');
    await expectCleanTraffic(guest);
  }, 120_000);

  it("shows a 4th unpaid booking's refusal in the API's words, with no retry (409 hold_limit)", async () => {
    const guest = await open(1280);
    const { page, widget } = guest;
    await readyToConfirm(guest, '2027-04-05', '2027-04-07');
    const words = 'You already have 3 unpaid bookings; pay one, or wait for one to be confirmed, first';
    await answerErrorOnce(page, createCall, {
      status: 409,
      id: 'hold_limit',
      title: 'Hold limit reached',
      details: words,
      data: { unpaid_bookings: 3 },
    });
    await widget.getByRole('button', { name: 'Confirm booking' }).click();
    expect(await refusalShown(page, new RegExp(words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))).toBe(true);
    expect(await textOf(widget), "not the widget's own words").not.toMatch(/as much as one guest may hold/);
    expect(await widget.getByRole('button', { name: /retry|try again/i }).count(), 'no retry').toBe(0);
    await screenshot(page, '1280-409-unpaid');
    await audit(page, 'unpaid bookings refusal');
    await auditAlsoAtPhoneWidth(page, 'unpaid bookings refusal');
    await expectCleanTraffic(guest);
  }, 120_000);

  it('shows a clear message with a retry when adding to the cart is rate limited (429)', async () => {
    const guest = await open(1280);
    const { page, traffic } = guest;
    await searchAndRead(page, traffic, '2027-03-15', '2027-03-17');
    await answer429Once(page, (url) => /\/api\/3\.0\/booking\/session\/?$/.test(url.pathname));
    await resultItem(page, 'Mountain Bike').getByRole('button', { name: 'Add to cart' }).click();
    await expectRetryAfter429(guest, cartLine(page, 'Mountain Bike'), 'add-to-cart');
    await expectCleanTraffic(guest);
  }, 120_000);
});
