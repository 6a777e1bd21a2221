import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import {
  announcements,
  audit,
  auditAlsoAtPhoneWidth,
  recordAnnouncements,
} from '#test/support/accessibility.ts';
import { type Guest, screenshot } from '#test/support/chromium.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import { cartMatchesApi, searchAndRead, softPoll } from '#test/support/widget-checks.ts';
import {
  becomesVisible,
  cartLine,
  cartOf,
  formatMoney,
  resultItem,
  STEP_TIMEOUT,
  textOf,
} from '#test/support/widget-page.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 14: "when the hold expires the cart says so and starts afresh", with holds the server really lets
// go: the demo tenant with `hold_minutes` 0.1 (six seconds).
const tenant = makeWidgetTenant((raw) => {
  raw.settings.hold_minutes = 0.1;
});
const money = (amount: string | number) => formatMoney(amount, tenant.locale.id, tenant.locale.currency);

const suite = setUpWidgetSuite({ tenant, name: 'expiry' });

const open = (prepare?: (page: Page) => Promise<void>): Promise<Guest> => suite.open(1280, { prepare });

const expiredText = /expired/i;
const countdownPattern = /\b\d{1,2}:\d{2}\b|\d+\s*(s|sec|second|seconds|min|minute|minutes)\b/i;

/** The session ids the page keeps in sessionStorage (every stored value). */
const storedValues = (page: Page): Promise<string[]> =>
  page.evaluate(() => Object.values((globalThis as any).sessionStorage));

/** After an expiry: a new cart works, on a new session. */
async function expectFreshStart(guest: Guest, oldId: string, name: string): Promise<void> {
  const { page, traffic } = guest;
  const from = traffic.api.length;
  await resultItem(page, name).getByRole('button', { name: 'Add to cart' }).click();
  expect(
    await becomesVisible(cartLine(page, name), STEP_TIMEOUT),
    `a new ${name} line after the expiry`,
  ).toBe(true);
  const session = await cartMatchesApi(page, traffic, { from, step: 'the cart after the expiry', money });
  expect(session.id, 'the new cart is a new session').not.toBe(oldId);
  const sent = traffic.api.slice(from).filter((exchange) => exchange.sessionParam === oldId);
  expect(
    sent.map((exchange) => `${exchange.method} ${exchange.path} ${exchange.status}`),
    'no call sends the expired session again',
  ).toEqual([]);
}

describe('an expired hold in the booking widget', () => {
  it('counts down, says the hold expired when it does, and starts afresh', async () => {
    const guest = await open();
    const { page, traffic } = guest;
    await searchAndRead(page, traffic, '2027-05-03', '2027-05-05');
    const from = traffic.api.length;
    await resultItem(page, 'Mountain Bike').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Mountain Bike').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const session = await cartMatchesApi(page, traffic, { from, step: 'after adding the bike', money });

    // A live countdown, announced.
    const first = await textOf(cartOf(page));
    expect.soft(first, 'the cart shows a countdown of the hold').toMatch(countdownPattern);
    await recordAnnouncements(page);
    await softPoll(
      async () => {
        const now = await textOf(cartOf(page));
        return expiredText.test(now) || now !== first;
      },
      true,
      'the countdown is live (it changes within 3 s)',
      3000,
    );

    // The hold runs out: the cart says so and starts afresh.
    const wait = Math.max(0, session.expires * 1000 - Date.now()) + 8000;
    await softPoll(
      async () => expiredText.test(await textOf(guest.widget)),
      true,
      'the widget says the hold expired',
      wait,
    );
    const cartText = (await cartOf(page).count()) > 0 ? await textOf(cartOf(page)) : '(no cart region)';
    expect.soft(cartText, 'the cart itself says the hold expired').toMatch(expiredText);
    await screenshot(page, '1280-expired');
    await softPoll(
      async () => cartLine(page, 'Mountain Bike').count(),
      0,
      'the expired line leaves the cart',
      5000,
    );
    const heard = await announcements(page);
    expect
      .soft(
        heard.some((text) => expiredText.test(text)),
        `the expiry is announced to screen readers (heard: ${JSON.stringify(heard)})`,
      )
      .toBe(true);
    expect
      .soft(await storedValues(page), 'the expired session id is no longer kept')
      .not.toContain(session.id);
    await audit(page, 'expired hold');
    await auditAlsoAtPhoneWidth(page, 'expired hold');
    await expectFreshStart(guest, session.id, 'Touring Kayak');
    await expectCleanTraffic(guest);
  }, 120_000);

  it('says so when the API answers 409 session_expired (a page whose clock lags behind)', async () => {
    // The page's clock stands still, so only the API can tell the widget that the hold is gone.
    const guest = await open(async (page) => page.clock.setFixedTime(Date.now()));
    const { page, traffic, widget } = guest;
    await searchAndRead(page, traffic, '2027-05-10', '2027-05-12');
    const from = traffic.api.length;
    await resultItem(page, 'Mountain Bike').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Mountain Bike').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const session = await cartMatchesApi(page, traffic, { from, step: 'after adding the bike', money });
    // Wait for the API to let the hold go (a read never extends it), not for a margin past `expires`.
    await expect
      .poll(
        async () =>
          (await fetch(`${suite.apiBase}/booking/session?session_id=${encodeURIComponent(session.id)}`))
            .status,
        {
          timeout: Math.max(0, session.expires * 1000 - Date.now()) + STEP_TIMEOUT,
          interval: 250,
          message: 'the API answers the held session 409 once its hold has run out',
        },
      )
      .toBe(409);

    const after = traffic.api.length;
    await widget.getByRole('button', { name: 'Book now' }).click();
    const confirm = widget.getByRole('button', { name: 'Confirm booking' });
    // The form opens (the hold is found gone when booking) or the widget already says the hold expired.
    await becomesVisible(confirm.or(widget.getByText(expiredText)), STEP_TIMEOUT);
    if (await confirm.isVisible()) {
      await widget.getByLabel('Full name').fill('Late Guest');
      await widget.getByLabel('Email').fill('late@example.com');
      await confirm.click();
    }
    await expect
      .poll(
        async () => {
          await traffic.settle();
          return traffic.api
            .slice(after)
            .some((exchange) => exchange.json?.request?.error?.id === 'session_expired');
        },
        { timeout: STEP_TIMEOUT, message: 'the API answers 409 session_expired' },
      )
      .toBe(true);
    await softPoll(
      async () => expiredText.test(await textOf(widget)),
      true,
      'the widget says the hold expired',
      5000,
    );
    expect(
      traffic.api
        .slice(after)
        .filter((exchange) => exchange.path === 'booking/create' && exchange.status === 200),
      'no booking from an expired hold',
    ).toEqual([]);
    await screenshot(page, '1280-expired-409');
    await softPoll(
      async () => cartLine(page, 'Mountain Bike').count(),
      0,
      'the expired line leaves the cart',
      5000,
    );
    // Starting afresh: back to the results (searching again if the widget left them) and a new cart.
    if (!(await becomesVisible(resultItem(page, 'Touring Kayak'), 2000))) {
      await searchAndRead(page, traffic, '2027-05-10', '2027-05-12');
    }
    await expectFreshStart(guest, session.id, 'Touring Kayak');
    await expectCleanTraffic(guest);
  }, 120_000);
});
