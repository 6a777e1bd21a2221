import { describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { audit, auditAlsoAtPhoneWidth } from '#test/support/accessibility.ts';
import { screenshot } from '#test/support/chromium.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import {
  cartMatchesApi,
  expectResultsMatchApi,
  lastSession,
  mainLines,
  searchAndRead,
} from '#test/support/widget-checks.ts';
import {
  cartLine,
  cartOf,
  dayButton,
  formatMoney,
  fromToday,
  normalize,
  pickDates,
  resultItem,
  STEP_TIMEOUT,
  textOf,
} from '#test/support/widget-page.ts';
import { holdThroughApi } from '#test/support/widget-service.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 14: the booking widget, driven in Debian's chromium through the page `npm start` serves at `/`, by
// the labels and roles the issue names, as a guest would. The tenant is the demo tenant (Loon Lake Lodge,
// en_CA, CAD, 15-minute holds) with per-client limits raised, since every browser here is one client.
// Here the results as the API rates them: sold out, closed, hourly slots, a package, and the calendar.

const tenant = makeWidgetTenant();
const money = (amount: string | number) => formatMoney(amount, tenant.locale.id, tenant.locale.currency);
const suite = setUpWidgetSuite({ tenant, name: 'results' });
const { open } = suite;

describe('the results of the booking widget', () => {
  it('shows a sold-out item without a button, closed and rule errors with rate.error, and a month calendar', async () => {
    await holdThroughApi(suite.apiBase, 2, '20270210', '20270212');
    const guest = await open(1280);
    const { page, traffic, widget } = guest;

    const items = await searchAndRead(page, traffic, '2027-02-10', '2027-02-12');
    const loft = items.get('Boathouse Loft Suite');
    expect(loft?.rate.status, 'the API rates the held loft as sold out').toBe('SOLDOUT');
    await expectResultsMatchApi(page, items, money);
    const loftEntry = resultItem(page, 'Boathouse Loft Suite');
    expect(
      await loftEntry.getByRole('button', { name: 'Add to cart' }).count(),
      'a sold-out item has no button',
    ).toBe(0);
    expect(await textOf(loftEntry)).toContain(normalize(loft.rate.error));
    await screenshot(page, '1280-sold-out');

    // The availability calendar, for the loft alone: its held nights are not available, a free one is,
    // with its price a night, as item/cal and the month's rates say.
    const calFrom = traffic.api.length;
    await widget.getByLabel('Show dates for').selectOption({ label: 'Boathouse Loft Suite' });
    await expect
      .poll(() => dayButton(page, '2027-02-10').getAttribute('aria-label'), { timeout: STEP_TIMEOUT })
      .toMatch(/, not available/);
    expect(await dayButton(page, '2027-02-15').getAttribute('aria-label')).toMatch(
      /, available, from \$\d+ a night$/,
    );
    expect(await dayButton(page, '2027-02-11').getAttribute('aria-label')).toMatch(/, not available/);
    await traffic.settle();
    const cal = [...traffic.api]
      .reverse()
      .find(
        (exchange) => exchange.path === 'item/cal' && exchange.json?.items?.['2']?.['20270210'] !== undefined,
      )?.json.items['2'];
    expect(cal?.['20270210'], 'the API says the held date is not available').toBe(0);
    expect(cal?.['20270215'], 'the API says a free date is available').toBe(1);
    expect(
      traffic.api.slice(calFrom).filter((exchange) => /^item/.test(exchange.path)).length,
      'choosing an item asks nothing more: the month is in',
    ).toBe(0);
    await screenshot(page, '1280-calendar');
    await audit(page, 'calendar');
    await auditAlsoAtPhoneWidth(page, 'calendar');

    // A closed date: the cabin is closed on 24 and 25 December (the calendar for everything again).
    await widget.getByLabel('Show dates for').selectOption({ label: 'Everything' });
    const closed = await searchAndRead(page, traffic, '2026-12-22', '2026-12-26');
    expect(closed.get('Lakeside Cabin')?.rate.error).toMatch(/Closed/);
    await expectResultsMatchApi(page, closed, money);
    await expectCleanTraffic(guest);
  }, 150_000);

  it("offers an hourly item's hours as buttons, with no time fields, and holds the one chosen", async () => {
    const guest = await open(1280);
    const { page, traffic, widget } = guest;
    expect(await widget.getByLabel(/start time|end time/i).count(), 'no time fields').toBe(0);
    await widget.getByLabel('Show dates for').selectOption({ label: 'Stand-up Paddleboard' });
    // An hourly item needs one date: tapping it searches.
    const day = fromToday(10);
    const from = traffic.api.length;
    await pickDates(page, day, day, { single: true });
    const board = resultItem(page, 'Stand-up Paddleboard');
    const hours = board.getByRole('group').getByRole('button');
    await hours.first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await traffic.settle();
    const overHours = traffic.api
      .slice(from)
      .find((exchange) => exchange.path === 'item/5' && (exchange.json?.item?.times?.length ?? 0) > 1)
      ?.json.item;
    expect(overHours, 'the paddleboard is rated over its opening hours').toBeTruthy();
    expect(await hours.count(), "a button for each of the item's times").toBe(overHours.times.length);
    const slotFrom = traffic.api.length;
    await board.getByRole('button', { name: '10:00 a.m.', exact: true }).click();
    const boardStatus = async () => {
      await traffic.settle();
      return traffic.api.slice(slotFrom).find((exchange) => exchange.path === 'item/5')?.json?.item?.rate;
    };
    await expect.poll(async () => (await boardStatus())?.status, { timeout: STEP_TIMEOUT }).toBe('AVAILABLE');
    const rate = await boardStatus();
    expect(await textOf(board), 'the hour, its length and its total').toContain(
      `10:00 a.m. · 1 hour · ${money(rate.total)}`,
    );
    const addFrom = traffic.api.length;
    await board.getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Stand-up Paddleboard').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const session = await cartMatchesApi(page, traffic, {
      from: addFrom,
      step: 'after adding the paddleboard',
      money,
    });
    expect(mainLines(session)[0]?.date.summary).toContain('10:00 - 11:00');
    expect
      .soft(await textOf(cartLine(page, 'Stand-up Paddleboard')), 'the cart line shows the hours')
      .toMatch(/10:00 a\.m\. – 11:00 a\.m\./);
    await audit(page, 'an hourly slot in the cart');
    await screenshot(page, '1280-hourly');
    await expectCleanTraffic(guest);
  }, 120_000);
  it('adds a package and opts in and out of its optional part', async () => {
    const guest = await open(1280);
    const { page, traffic } = guest;
    await searchAndRead(page, traffic, '2027-04-05', '2027-04-07');
    const addFrom = traffic.api.length;
    await resultItem(page, 'Cabin & Breakfast Getaway').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Cabin & Breakfast Getaway').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const before = await cartMatchesApi(page, traffic, {
      from: addFrom,
      step: 'after adding the package',
      money,
    });
    const part = Object.values(before.item).find((line: any) => line.parent && line.optional === 1) as any;
    expect(part?.name, 'the API lists the optional hamper').toBe('Breakfast Hamper');
    const cart = cartOf(page);
    const toggle = cart
      .getByRole('checkbox', { name: /breakfast hamper/i })
      .or(cart.getByRole('switch', { name: /breakfast hamper/i }))
      .or(cart.getByRole('button', { name: /breakfast hamper/i }));
    expect(await toggle.count(), 'the cart offers the Breakfast Hamper opt-in').toBeGreaterThan(0);
    const optFrom = traffic.api.length;
    await toggle.first().click();
    await expect
      .poll(
        async () => {
          await traffic.settle();
          const line = Object.values(lastSession(traffic, optFrom)?.item ?? {}).find(
            (entry: any) => entry.name === 'Breakfast Hamper',
          ) as any;
          return line?.opt;
        },
        { timeout: STEP_TIMEOUT, message: 'the opt-in reaches the API' },
      )
      .toBe(part.opt === 'in' ? 'out' : 'in');
    const after = await cartMatchesApi(page, traffic, {
      from: optFrom,
      step: 'after opting in or out',
      money,
    });
    expect(after.total).not.toBe(before.total);
    await screenshot(page, '1280-package');
    await audit(page, 'package in the cart');
    await expectCleanTraffic(guest);
  }, 120_000);
});
