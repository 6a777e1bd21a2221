import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { describeFocus, focusIndicator, focusIsIn, tabTo } from '#test/support/focus.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import { lastSession, mainLines, softPoll } from '#test/support/widget-checks.ts';
import { spoilOnce } from '#test/support/widget-form.ts';
import {
  bookingForm,
  calendarOf,
  cartLine,
  cartOf,
  dayButton,
  dayName,
  fromToday,
  resultItem,
  STEP_TIMEOUT,
  searchArea,
} from '#test/support/widget-page.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 14: the booking widget, driven in Debian's chromium through the page `npm start` serves at `/`, by
// the labels and roles the issue names, as a guest would. The tenant is the demo tenant (Loon Lake Lodge,
// en_CA, CAD, 15-minute holds) with per-client limits raised, since every browser here is one client.
// Here by keyboard alone, the focus moving to what changed.

const tenant = makeWidgetTenant();
const suite = setUpWidgetSuite({ tenant, name: 'keyboard' });
const { open } = suite;

describe('the booking widget by keyboard alone', () => {
  it('books with Tab, Shift+Tab, Enter and Space, the focus moving to what changed', async () => {
    const guest = await open(1280);
    const { page, traffic, widget } = guest;
    const area = await searchArea(page);
    const unseen: string[] = [];
    const focus = async (target: Locator) => {
      await tabTo(page, target);
      const indicator = await focusIndicator(page);
      if (!indicator.visible) unseen.push(`${indicator.element} (${indicator.style})`);
    };
    // The widget moves the focus once it has drawn what changed: wait for it to land, then check softly.
    const focusLands = (probe: () => Promise<boolean>, step: string) =>
      softPoll(probe, true, async () => `${step} (on ${await describeFocus(page)})`);

    // The calendar by keyboard (WAI-ARIA APG date picker grid): Tab reaches one day, PageDown turns the
    // month, the arrows move a day or a week, Home and End go to the week's ends, Enter chooses.
    expect(await area.getByLabel('Adults').count(), 'the quantities are there').toBe(1);
    const focusedDay = () =>
      page.evaluate(() => (globalThis as any).__e2e.deepActive()?.getAttribute('aria-label') ?? '');
    await focus(dayButton(page, fromToday(0)));
    const month = calendarOf(page).getByRole('heading', { level: 3 });
    for (let presses = 0; presses < 24 && (await month.innerText()) !== 'January 2027'; presses++)
      await page.keyboard.press('PageDown');
    expect(await month.innerText(), 'PageDown turns to January 2027').toBe('January 2027');
    await calendarOf(page).and(page.locator('[aria-busy="false"]')).waitFor({ timeout: STEP_TIMEOUT });
    const moveTo = async (date: string) => {
      let at = new Date(`${(await focusedDay()).split(', ').slice(1, 3).join(', ')} 12:00`);
      const target = new Date(`${date}T12:00:00`);
      for (let guard = 0; guard < 40 && at.getTime() !== target.getTime(); guard++) {
        const days = Math.round((target.getTime() - at.getTime()) / 86_400_000);
        await page.keyboard.press(
          Math.abs(days) >= 7 ? (days > 0 ? 'ArrowDown' : 'ArrowUp') : days > 0 ? 'ArrowRight' : 'ArrowLeft',
        );
        at = new Date(`${(await focusedDay()).split(', ').slice(1, 3).join(', ')} 12:00`);
      }
      expect(await focusedDay(), `the arrows move the focus to ${date}`).toMatch(
        new RegExp(`^${dayName(page, date)}`),
      );
    };
    await moveTo('2027-01-20');
    await page.keyboard.press('End');
    expect(await focusedDay(), 'End goes to the end of the week').toMatch(/^Saturday, January 23, 2027/);
    await page.keyboard.press('Home');
    expect(await focusedDay(), 'Home goes to the start of the week').toMatch(/^Sunday, January 17, 2027/);
    await moveTo('2027-01-24');
    await page.keyboard.press('Enter');
    await expect.poll(focusedDay, { timeout: STEP_TIMEOUT }).toMatch(/your first date/);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await focusedDay()).toMatch(/^Tuesday, January 26, 2027/);
    await page.keyboard.press('Enter');
    const kayak = resultItem(page, 'Touring Kayak');
    await kayak.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const results = widget
      .getByRole('list')
      .filter({ has: page.getByRole('heading', { name: 'Touring Kayak', exact: true }) })
      .last();
    await focusLands(() => focusIsIn(results), 'after the last date the focus is in the results');

    await focus(kayak.getByRole('button', { name: 'Add to cart' }));
    await page.keyboard.press('Enter');
    await cartLine(page, 'Touring Kayak').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await focusLands(() => focusIsIn(cartOf(page)), 'after Add to cart the focus is in the cart');

    // A second item, its quantity and its removal, by keyboard; the focus is never lost.
    const bike = resultItem(page, 'Mountain Bike');
    await focus(bike.getByRole('button', { name: 'Add to cart' }));
    await page.keyboard.press('Enter');
    await cartLine(page, 'Mountain Bike').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const kayakLine = cartLine(page, 'Touring Kayak');
    const quantityFrom = traffic.api.length;
    const quantityField = kayakLine.getByRole('spinbutton').or(kayakLine.getByRole('textbox')).first();
    const increase = kayakLine.getByRole('button', { name: /increase|more|^\+$|plus/i });
    if ((await increase.count()) > 0) {
      await focus(increase.first());
      await page.keyboard.press('Space');
    } else {
      await focus(quantityField);
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('2');
      await page.keyboard.press('Tab');
    }
    await expect
      .poll(
        async () => {
          await traffic.settle();
          return mainLines(lastSession(traffic, quantityFrom)).find((line) => line.name === 'Touring Kayak')
            ?.qty;
        },
        { timeout: STEP_TIMEOUT, message: 'the kayak quantity changes by keyboard' },
      )
      .toBe(2);
    await focus(cartLine(page, 'Mountain Bike').getByRole('button', { name: /remove/i }));
    await page.keyboard.press('Enter');
    await expect.poll(() => cartLine(page, 'Mountain Bike').count(), { timeout: STEP_TIMEOUT }).toBe(0);
    await focusLands(() => focusIsIn(cartOf(page)), 'after Remove the focus stays in the cart');

    await focus(widget.getByRole('button', { name: 'Book now' }));
    await page.keyboard.press('Space');
    await widget
      .getByRole('button', { name: 'Confirm booking' })
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const form = await bookingForm(page);
    await focusLands(() => focusIsIn(form), 'after Book now the focus is in the form');

    // A client-side error: the focus goes to it (or to the field).
    const confirm = widget.getByRole('button', { name: 'Confirm booking' });
    await focus(confirm);
    await page.keyboard.press('Enter');
    await focusLands(async () => {
      const onError = await page.evaluate(() => {
        const e2e = (globalThis as any).__e2e;
        const active = e2e.deepActive();
        return {
          field:
            /^(input|select|textarea)$/i.test(active?.tagName ?? '') &&
            (active.getAttribute('aria-invalid') === 'true' || !active.validity.valid),
          text: (active?.textContent ?? '').trim(),
        };
      });
      return onError.field || /error|problem|required|enter|fix/i.test(onError.text);
    }, 'after an invalid Confirm the focus is on the error');

    await focus(form.getByLabel('Full name'));
    await page.keyboard.type('Grace Hopper');
    await focus(form.getByLabel('Email'));
    await page.keyboard.type('grace@example.com');

    // A server error: the focus goes to it.
    await spoilOnce(page, 'customer_email', 'not-an-email');
    const serverFrom = traffic.api.length;
    await focus(confirm);
    await page.keyboard.press('Enter');
    await expect
      .poll(
        async () => {
          await traffic.settle();
          return traffic.api.slice(serverFrom).find((exchange) => exchange.path === 'booking/create')?.status;
        },
        { timeout: STEP_TIMEOUT },
      )
      .toBe(400);
    await focusLands(async () => {
      const serverFocus = await page.evaluate(() => {
        const e2e = (globalThis as any).__e2e;
        const active = e2e.deepActive();
        return {
          email:
            active?.tagName === 'INPUT' &&
            /email/i.test(`${active.name} ${active.id} ${active.type} ${active.labels?.[0]?.textContent}`),
          text: (active?.textContent ?? '').trim(),
        };
      });
      return serverFocus.email || /email|error|problem|invalid/i.test(serverFocus.text);
    }, 'after a server error the focus is on it');

    // Confirm by keyboard: the focus goes to the confirmation.
    const createFrom = traffic.api.length;
    await focus(confirm);
    await page.keyboard.press('Enter');
    await expect
      .poll(
        async () => {
          await traffic.settle();
          return traffic.api.slice(createFrom).find((exchange) => exchange.path === 'booking/create')?.status;
        },
        { timeout: STEP_TIMEOUT },
      )
      .toBe(200);
    const code: string = traffic.api.slice(createFrom).find((exchange) => exchange.path === 'booking/create')
      ?.json.booking.id;
    await widget.getByText(code).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const onConfirmation = () =>
      page.evaluate((bookingCode) => {
        const e2e = (globalThis as any).__e2e;
        const active = e2e.deepActive();
        if (!active || active.tagName === 'BODY' || active.tagName === 'BOOKING-WIDGET') return false;
        const parent = e2e.parentOf(active);
        return (
          (active.textContent ?? '').includes(bookingCode) ||
          (parent?.tagName !== 'BOOKING-WIDGET' && (parent?.textContent ?? '').includes(bookingCode))
        );
      }, code);
    expect.soft(unseen, 'controls that show no focus indicator when focused by keyboard').toEqual([]);
    await focusLands(onConfirmation, 'after Confirm booking the focus is on the confirmation');
    await expectCleanTraffic(guest);
  }, 150_000);
});
