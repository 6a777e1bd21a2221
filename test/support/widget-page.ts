import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

// The booking widget as a guest sees it: found by the labels and roles the issue names, never by its code.

/** How long one step of a flow may take in the browser. */
export const STEP_TIMEOUT = 20_000;

/** The `booking-widget` element of a page. */
export const widgetOf = (page: Page): Locator => page.locator('booking-widget');

/** Collapses every kind of space (Intl puts no-break spaces in amounts) so texts compare as read. */
export const normalize = (text: string): string => text.replace(/[\s\u00a0\u202f]+/g, ' ').trim();

/** An amount as the tenant's locale and currency write it (`Intl`), e.g. "$1,240.00" or "190,00 €". */
export const formatMoney = (amount: string | number, localeId: string, currency: string): string =>
  normalize(
    new Intl.NumberFormat(localeId.replace('_', '-'), { style: 'currency', currency }).format(Number(amount)),
  );

/** The tenant locale each page's widget writes dates in (BCP 47), as the suite that opened it set it. */
const pageLocales = new WeakMap<Page, string>();

/** Records the tenant locale a page's widget writes in (`en_CA` → `en-CA`). */
export const setPageLocale = (page: Page, localeId: string): void => {
  pageLocales.set(page, localeId.replace('_', '-'));
};

/** A date (YYYY-MM-DD) as the widget names its day in the calendar: "Monday, January 4, 2027". */
export const dayName = (page: Page, date: string): string =>
  new Intl.DateTimeFormat(pageLocales.get(page) ?? 'en-CA', {
    weekday: 'long',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
  }).format(new Date(`${date}T12:00:00`));

const monthName = (page: Page, date: string): string =>
  new Intl.DateTimeFormat(pageLocales.get(page) ?? 'en-CA', { month: 'long', year: 'numeric' }).format(
    new Date(`${date}T12:00:00`),
  );

/** A date `days` after today in Toronto (the guests' browsers' zone), as YYYY-MM-DD. */
export const fromToday = (days: number): string => {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Toronto' }).format(new Date());
  const date = new Date(`${today}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
};

/** The calendar (the region "Choose your dates"). */
export const calendarOf = (page: Page): Locator =>
  widgetOf(page).getByRole('region', { name: 'Choose your dates' });

/** The calendar's button for a day, found by the full date its name starts with. */
export const dayButton = (page: Page, date: string): Locator =>
  calendarOf(page)
    .getByRole('grid')
    .getByRole('button', {
      name: new RegExp(`^${dayName(page, date).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    });

/** Pages the calendar with its month buttons until it shows the month of `date` (and that month is in). */
export async function showMonth(
  page: Page,
  date: string,
  press: (button: Locator) => Promise<void> = (button) => button.click(),
): Promise<void> {
  const calendar = calendarOf(page);
  const heading = calendar.getByRole('heading', { level: 3 });
  const wanted = monthName(page, date);
  for (let step = 0; step < 24; step++) {
    const shown = normalize(await heading.innerText({ timeout: STEP_TIMEOUT }));
    if (shown === wanted) break;
    const shownDate = new Date(`${shown} 15`);
    const forward = Number.isNaN(shownDate.getTime()) || new Date(`${date}T12:00:00`) > shownDate;
    const button = calendar.getByRole('button', { name: forward ? 'Next month' : 'Previous month' });
    await press(button);
    await expect
      .poll(async () => normalize(await heading.innerText()), { timeout: STEP_TIMEOUT })
      .not.toBe(shown);
  }
  await expect(normalize(await heading.innerText()), 'the calendar shows the month').toBe(wanted);
  await calendar.and(page.locator('[aria-busy="false"]')).waitFor({ timeout: STEP_TIMEOUT });
}

/** Chooses dates on the calendar as a guest does (the month, then the first and the last day). */
export async function pickDates(
  page: Page,
  start: string,
  end: string,
  options: { press?: (button: Locator) => Promise<void>; single?: boolean } = {},
): Promise<void> {
  const press = options.press ?? ((button: Locator) => button.click());
  await showMonth(page, start, press);
  await press(dayButton(page, start));
  await expect
    .poll(() => dayButton(page, start).getAttribute('aria-label'), {
      timeout: STEP_TIMEOUT,
      message: `${start} is chosen as the first date`,
    })
    .toMatch(/your first date/);
  // An hourly item needs one date: the first runs the search.
  if (options.single) return;
  await showMonth(page, end, press);
  await press(dayButton(page, end));
}

/** The part of the widget holding the quantities ("Who is coming"), else the whole widget. */
export async function searchArea(page: Page): Promise<Locator> {
  const area = widgetOf(page).getByRole('region', { name: 'Who is coming' });
  return (await area.count()) === 1 ? area : widgetOf(page);
}

/** The booking form (the form holding "Confirm booking"), else the whole widget. */
export async function bookingForm(page: Page): Promise<Locator> {
  const form = widgetOf(page)
    .locator('form')
    .filter({ has: page.getByRole('button', { name: 'Confirm booking' }) });
  return (await form.count()) === 1 ? form : widgetOf(page);
}

/** The list item of a search result: a list item whose heading is the item's name (not a cart line). */
export const resultItem = (page: Page, name: string): Locator =>
  widgetOf(page)
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name, exact: true }) })
    .filter({ hasNot: page.getByRole('button', { name: /remove/i }) });

/** The region labelled "Cart". */
export const cartOf = (page: Page): Locator => widgetOf(page).getByRole('region', { name: 'Cart' });

/** A line of the cart (a list item or a row) that names the item. */
export const cartLine = (page: Page, name: string): Locator =>
  cartOf(page).getByRole('listitem').or(cartOf(page).getByRole('row')).filter({ hasText: name }).first();

/** Sets a control's value as a user would: picks an option of a select, types into anything else. */
export async function setValue(control: Locator, value: string): Promise<void> {
  const tag = await control.evaluate((element) => element.tagName.toLowerCase());
  if (tag === 'select') {
    await control.selectOption([{ value }, { label: value }]);
  } else {
    await control.fill(value);
  }
}

/**
 * Sets the quantity of a cart line with its control, as a guest would: a number field or a select takes the
 * number; otherwise its "increase" button is pressed until the API's line has the quantity.
 */
export async function setLineQuantity(
  page: Page,
  name: string,
  quantity: number,
  apiQuantity: () => Promise<number | undefined>,
): Promise<void> {
  const line = cartLine(page, name);
  const field = line.getByRole('spinbutton').or(line.getByRole('combobox')).or(line.getByRole('textbox'));
  if ((await field.count()) > 0) {
    await setValue(field.first(), String(quantity));
    await field.first().press('Tab');
    return;
  }
  const more = line.getByRole('button', { name: /increase|more|add one|^\+$|plus/i });
  if ((await more.count()) === 0) throw new Error(`the cart line of ${name} has no quantity control`);
  for (let presses = 0; presses < quantity + 2; presses++) {
    const before = await apiQuantity();
    if (before === quantity) return;
    await more.first().click();
    await expect.poll(apiQuantity, { timeout: STEP_TIMEOUT }).not.toBe(before);
  }
}

/** Chooses the dates on the calendar, which runs the search. */
export async function search(page: Page, start: string, end: string): Promise<void> {
  await pickDates(page, start, end);
}

/**
 * Waits until the widget has no call out (its `aria-busy` is false), as when it has started and read what
 * it keeps; the Search button alone shows only that the catalogue is in.
 */
export const widgetIdle = (page: Page): Promise<void> =>
  widgetOf(page).locator('[aria-busy="false"]').first().waitFor({ state: 'attached', timeout: STEP_TIMEOUT });

/**
 * Waits until the widget shows a refusal (an alert: the form's error summary, or a notice) that says
 * `says` and not `not`, as it does once it has dealt with what the guest just did; false if none shows.
 */
export const refusalShown = (page: Page, says: RegExp, not?: RegExp): Promise<boolean> => {
  const alert = widgetOf(page).getByRole('alert').filter({ hasText: says });
  return becomesVisible(not ? alert.filter({ hasNotText: not }) : alert, STEP_TIMEOUT);
};

/** Whether a locator becomes visible within the time given. */
export const becomesVisible = (locator: Locator, timeout = 10_000): Promise<boolean> =>
  locator
    .first()
    .waitFor({ state: 'visible', timeout })
    .then(
      () => true,
      () => false,
    );

/** The text of a locator, spaces normalised. */
export const textOf = async (locator: Locator): Promise<string> =>
  normalize(await locator.evaluate((element) => (globalThis as any).__e2e.deepText(element)));
