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

/** The part of the widget holding the Search button: its form, else the whole widget. */
export async function searchArea(page: Page): Promise<Locator> {
  const form = widgetOf(page)
    .locator('form')
    .filter({ has: page.getByRole('button', { name: 'Search' }) });
  return (await form.count()) === 1 ? form : widgetOf(page);
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

/** Fills the search dates by their labels and clicks Search. */
export async function search(page: Page, start: string, end: string): Promise<void> {
  const area = await searchArea(page);
  await area.getByLabel('Start date').fill(start);
  await area.getByLabel('End date').fill(end);
  await area.getByRole('button', { name: 'Search' }).click();
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
