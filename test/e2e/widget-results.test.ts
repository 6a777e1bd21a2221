import type { Locator } from 'playwright-core';
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
  ratedItems,
  searchAndRead,
} from '#test/support/widget-checks.ts';
import {
  becomesVisible,
  cartLine,
  cartOf,
  formatMoney,
  normalize,
  resultItem,
  STEP_TIMEOUT,
  searchArea,
  setValue,
  textOf,
  widgetOf,
} from '#test/support/widget-page.ts';
import { holdThroughApi } from '#test/support/widget-service.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 14: the booking widget, driven in Debian's chromium through the page `npm start` serves at `/`, by
// the labels and roles the issue names, as a guest would. The tenant is the demo tenant (Loon Lake Lodge,
// en_CA, CAD, 15-minute holds) with per-client limits raised, since every browser here is one client.
// Here the results as the API rates them: sold out, closed, hourly, a package, and the month calendar.

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

    // The availability calendar of the month, on demand, from item/{id}/cal.
    const calFrom = traffic.api.length;
    const opener = loftEntry
      .getByRole('button', { name: /calendar|availability/i })
      .or(loftEntry.getByRole('link', { name: /calendar|availability/i }));
    expect(await opener.count(), 'the loft offers its availability calendar').toBeGreaterThan(0);
    const covers = (exchange: any) =>
      exchange.path === 'item/2/cal' && exchange.json?.item?.cal?.['20270210'] !== undefined;
    const monthsRead = async () => {
      await traffic.settle();
      return traffic.api.slice(calFrom).filter((exchange) => exchange.path === 'item/2/cal').length;
    };
    /** Clicks, then waits for the calendar answer it asks for (none comes when the click asks nothing). */
    const readMonth = async (control: Locator) => {
      const before = await monthsRead();
      await control.click();
      await expect.poll(monthsRead, { timeout: STEP_TIMEOUT }).toBeGreaterThan(before);
    };
    await readMonth(opener.first());
    for (let step = 1; step < 4; step++) {
      if (traffic.api.slice(calFrom).some(covers)) break;
      const next = widget.getByRole('button', { name: /next/i });
      if ((await next.count()) === 0) break;
      await readMonth(next.first());
    }
    const calCalls = traffic.api.slice(calFrom).filter((exchange) => exchange.path === 'item/2/cal');
    expect(calCalls.length, 'the calendar is read from item/2/cal').toBeGreaterThan(0);
    expect
      .soft(
        calCalls[0] && covers(calCalls[0]),
        `the first calendar is the searched month (asked: ${calCalls[0]?.url.search})`,
      )
      .toBe(true);
    const cal = traffic.api.slice(calFrom).find(covers)?.json.item.cal;
    expect(cal?.['20270210'], 'the API says the held date is not available').toBe(0);
    expect(cal?.['20270215'], 'the API says a free date is available').toBe(1);
    const grid = widget.getByRole('grid').or(widget.getByRole('table'));
    const calendarRoot = (await grid.count()) > 0 ? grid.last() : loftEntry;
    const days = await calendarRoot.evaluate((root: any) => {
      const e2e = (globalThis as any).__e2e;
      const all = e2e.allElements(root.shadowRoot ?? root);
      const ownText = (element: any) =>
        Array.from(element.childNodes)
          .filter((node: any) => node.nodeType === 3)
          .map((node: any) => node.textContent)
          .join('')
          .trim();
      const describe = (element: any) =>
        [
          element.getAttribute('aria-label'),
          element.getAttribute('title'),
          element.getAttribute('aria-disabled'),
          element.getAttribute('class'),
          ...Array.from(element.attributes ?? [])
            .filter((attribute: any) => attribute.name.startsWith('data-'))
            .map((attribute: any) => `${attribute.name}=${attribute.value}`),
          (element.textContent ?? '').trim(),
        ].join('|');
      const signature = (day: number) => {
        const named = new RegExp(
          `(Feb\\w*\\.?\\s+${day}\\b)|(\\b${day}\\s+Feb)|(2027-02-${String(day).padStart(2, '0')})`,
          'i',
        );
        const cell = all.find(
          (element: any) =>
            ownText(element) === String(day) ||
            named.test(
              `${element.getAttribute('aria-label') ?? ''} ${element.getAttribute('title') ?? ''} ${element.getAttribute('datetime') ?? ''}`,
            ),
        );
        if (!cell) return null;
        const parent = e2e.parentOf(cell);
        return `${describe(cell)} / ${parent ? describe(parent) : ''}`
          .replace(/\d+/g, '#')
          .replace(/(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b/g, 'DAY');
      };
      return { held: signature(10), held2: signature(11), free: signature(15), free2: signature(16) };
    });
    expect(days.held, 'the calendar shows day 10 of February 2027').toBeTruthy();
    expect(days.free, 'the calendar shows day 15 of February 2027').toBeTruthy();
    expect
      .soft(days.held, `the calendar marks the sold-out day apart from a free one (${JSON.stringify(days)})`)
      .not.toBe(days.free);
    await screenshot(page, '1280-calendar');
    await audit(page, 'calendar');
    await auditAlsoAtPhoneWidth(page, 'calendar');

    // A closed date: the cabin is closed on 24 and 25 December.
    const closed = await searchAndRead(page, traffic, '2026-12-22', '2026-12-26');
    expect(closed.get('Lakeside Cabin')?.rate.error).toMatch(/Closed/);
    await expectResultsMatchApi(page, closed, money);
    await expectCleanTraffic(guest);
  }, 150_000);

  it('rates hourly items for a date and start and end times', async () => {
    const guest = await open(1280);
    const { page, traffic } = guest;
    const area = await searchArea(page);
    const startTime = area.getByLabel(/start time/i);
    const endTime = area.getByLabel(/end time/i);
    expect(await startTime.count(), 'a control labelled "Start time" for hourly items').toBe(1);
    expect(await endTime.count(), 'a control labelled "End time" for hourly items').toBe(1);
    // An hourly rental takes a date and times: the start date alone (or a field labelled "Date").
    const single = area.getByLabel('Date', { exact: true });
    await ((await single.count()) === 1 ? single : area.getByLabel('Start date')).fill('2027-01-15');
    await setValue(startTime, '10:00');
    await setValue(endTime, '12:00');
    let from = traffic.api.length;
    await area.getByRole('button', { name: 'Search' }).click();
    const board = resultItem(page, 'Stand-up Paddleboard');
    const boardStatus = async () => {
      await traffic.settle();
      return ratedItems(traffic, from).get('Stand-up Paddleboard')?.rate.status;
    };
    const withOneDate = (await becomesVisible(board, 8000)) && (await boardStatus()) === 'AVAILABLE';
    if (!withOneDate) {
      expect
        .soft(
          `End date "${await area.getByLabel('End date').inputValue()}": ${await textOf(widgetOf(page))}`.slice(
            0,
            600,
          ),
          'a date (Start date, End date as the widget pre-filled it) with start and end times rates an hourly item',
        )
        .toBe('the paddleboard rated');
      // The same day as the end date.
      await area.getByLabel('End date').fill('2027-01-15');
      from = traffic.api.length;
      await area.getByRole('button', { name: 'Search' }).click();
      const sameDay = (await becomesVisible(board, 8000)) && (await boardStatus()) === 'AVAILABLE';
      expect
        .soft(
          sameDay ? 'the paddleboard rated' : `${await textOf(widgetOf(page))}`.slice(0, 600),
          'an hourly search with the end date on the same day rates the paddleboard',
        )
        .toBe('the paddleboard rated');
      if (!sameDay) {
        await area.getByLabel('End date').fill('2027-01-16');
        from = traffic.api.length;
        await area.getByRole('button', { name: 'Search' }).click();
      }
    }
    await board.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await expect.poll(boardStatus, { timeout: STEP_TIMEOUT }).toBeDefined();
    const items = ratedItems(traffic, from);
    const rated = items.get('Stand-up Paddleboard');
    expect(rated?.rate.status, `the paddleboard is rated for 10:00-12:00 (${rated?.rate.error})`).toBe(
      'AVAILABLE',
    );
    await expectResultsMatchApi(page, items, money);
    const addFrom = traffic.api.length;
    await board.getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Stand-up Paddleboard').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const session = await cartMatchesApi(page, traffic, {
      from: addFrom,
      step: 'after adding the paddleboard',
      money,
    });
    expect(mainLines(session)[0]?.date.summary).toContain('10:00 - 12:00');
    expect
      .soft(await textOf(cartLine(page, 'Stand-up Paddleboard')), 'the cart line shows the hours')
      .toMatch(/10:00|10 ?am/i);
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
