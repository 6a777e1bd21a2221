import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Traffic } from './traffic.ts';
import { cartOf, normalize, resultItem, STEP_TIMEOUT, search, textOf } from './widget-page.ts';

// Checks shared by the widget tests: what the widget shows, held against the API's answers.

/**
 * Rated items of the API answers recorded from `from` on (the widget's own search), keyed by name; with a
 * span (YYYY-MM-DD), only items rated for exactly those dates (not a month's prices, not an hour).
 */
export function ratedItems(
  traffic: Traffic,
  from = 0,
  span?: { start: string; end: string },
): Map<string, any> {
  const items = new Map<string, any>();
  const compact = (date: string) => date.replaceAll('-', '');
  for (const exchange of traffic.api.slice(from)) {
    if (exchange.status !== 200 || !/^item(\/\d+)?$/.test(exchange.path)) continue;
    const query = exchange.json?.query;
    if (
      span &&
      (compact(String(query?.start_date ?? '')) !== compact(span.start) ||
        compact(String(query?.end_date ?? '')) !== compact(span.end) ||
        query?.start_time)
    )
      continue;
    const found = exchange.json?.items ? Object.values(exchange.json.items) : [exchange.json?.item];
    for (const item of found as any[]) if (item?.rate) items.set(item.name, item);
  }
  return items;
}

/** The last cart (`booking.session`) the API answered with, from `from` on. */
export function lastSession(traffic: Traffic, from = 0): any {
  return traffic.api
    .slice(from)
    .filter((exchange) => exchange.json?.booking?.session)
    .at(-1)?.json.booking.session;
}

/** Whether a rated item can be booked as clients decide it: `rate.status` AVAILABLE with a SLIP. */
export const isBookable = (item: any): boolean => item?.rate?.status === 'AVAILABLE' && !!item.rate.slip;

/** A text pattern for "N left / N available / N remaining". */
export const leftPattern = (count: number) =>
  new RegExp(
    `(\\b${count}\\b[^0-9]{0,25}(available|left|remaining))|((available|left|remaining)[^0-9]{0,25}\\b${count}\\b)`,
    'i',
  );

/** Counts the matches of a pattern in a text. */
export const countMatches = (text: string, pattern: RegExp) =>
  (text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)) ?? []).length;

/**
 * Polls until `probe` gives `expected` (or time runs out), then checks it softly: the flow goes on. The
 * message may be worked out at the end, to say what the page showed then.
 */
export async function softPoll<T>(
  probe: () => Promise<T>,
  expected: T,
  message: string | (() => Promise<string>),
  timeout = 5000,
): Promise<boolean> {
  const deadline = Date.now() + timeout;
  let last: T = await probe();
  while (last !== expected && Date.now() < deadline) {
    await new Promise((wake) => setTimeout(wake, 200));
    last = await probe();
  }
  expect.soft(last, typeof message === 'string' ? message : await message()).toEqual(expected);
  return last === expected;
}

/** Waits until the cart shows the total of the last cart the API answered with, and returns that cart. */
export async function cartMatchesApi(
  page: Page,
  traffic: Traffic,
  options: { from: number; step: string; money: (amount: string | number) => string },
): Promise<any> {
  const { from, step, money } = options;
  let session: any;
  await expect
    .poll(
      async () => {
        await traffic.settle();
        session = lastSession(traffic, from);
        if (!session) return 'no cart answer yet';
        const text = normalize(
          await cartOf(page)
            .innerText({ timeout: 2000 })
            .catch(() => ''),
        );
        return text.includes(money(session.total))
          ? 'shown'
          : `cart shows "${text}", API total ${session.total}`;
      },
      {
        timeout: STEP_TIMEOUT,
        message: `${step}: the cart shows the API's total, as the tenant's locale writes it`,
      },
    )
    .toBe('shown');
  return session;
}

/** The lines of a cart that are not parts of a package. */
export const mainLines = (session: any) =>
  Object.values(session?.item ?? {}).filter((line: any) => !line.parent) as any[];

/** Checks every item the API rated for the search against its list item. */
export async function expectResultsMatchApi(
  page: Page,
  items: Map<string, any>,
  money: (amount: string | number) => string,
): Promise<void> {
  for (const [name, item] of items) {
    const entry = resultItem(page, name);
    const count = await entry.count();
    expect.soft(count, `"${name}" is one list item whose heading is its name`).toBe(1);
    if (count !== 1) continue;
    const text = await textOf(entry);
    const buttons = await entry.getByRole('button', { name: 'Add to cart' }).count();
    for (const line of String(item.summary ?? '').split('\n')) {
      if (line.trim()) expect.soft(text, `"${name}" shows its summary`).toContain(normalize(line));
    }
    if (item.unit === 'H') {
      // An hourly item offers its hours as buttons (its times), and no price until one is chosen.
      const slots = await entry.getByRole('group').getByRole('button').count();
      const unavailable = await entry.getByText(/No times are free/).count();
      expect
        .soft(slots + unavailable, `"${name}" (hourly) offers its hours as buttons, or says none is free`)
        .toBeGreaterThan(0);
      const fields = entry.getByRole('textbox').or(entry.getByLabel(/start time|end time/i));
      expect.soft(await fields.count(), `"${name}" (hourly) has no date or time fields`).toBe(0);
    } else if (isBookable(item)) {
      const span = `${unitWords(item.unit, item.days)} · ${money(item.rate.total)}`;
      expect.soft(text, `"${name}" shows its nights or days and its total ("${span}")`).toContain(span);
      const few = item.rate.available <= FEW_LEFT;
      expect
        .soft(
          leftPattern(item.rate.available).test(text),
          `"${name}" says what is left (${item.rate.available}) only when few are`,
        )
        .toBe(few);
      expect.soft(buttons, `"${name}" has one "Add to cart" button`).toBe(1);
    } else {
      if (item.rate.error) {
        expect
          .soft(text, `"${name}" (${item.rate.status}) shows rate.error`)
          .toContain(normalize(item.rate.error));
      }
      expect.soft(buttons, `"${name}" (${item.rate.status}) has no "Add to cart" button`).toBe(0);
    }
    const sources = Object.values(item.image ?? {}).flatMap((image: any) =>
      [image.src, image['src@2x'], image.url, image.url_medium, image.url_small].filter(Boolean),
    );
    if (sources.length > 0) {
      const image = entry.locator('img').first();
      expect.soft(await image.count(), `"${name}" shows its image`).toBe(1);
      if ((await image.count()) === 1) {
        await image.scrollIntoViewIfNeeded().catch(() => undefined);
        await softPoll(
          () => image.evaluate((img: any) => img.complete && img.naturalWidth > 0),
          true,
          `"${name}": its image loads`,
        );
        const shown = await image.evaluate((img: any) => img.currentSrc || img.src);
        expect.soft(sources, `"${name}": the image is the one the API returned`).toContain(shown);
      }
    }
  }
}

/** "3 nights", "1 day": how the widget counts a rated item's span (the rule it is held to here). */
export const unitWords = (unit: 'N' | 'D' | 'H', count: number): string =>
  `${count} ${{ N: 'night', D: 'day', H: 'hour' }[unit]}${count === 1 ? '' : 's'}`;

/** At most this many left, an item says so ("Only 2 left"): the widget's threshold (docs/decisions.md). */
export const FEW_LEFT = 3;

/** Chooses dates on the calendar and waits for the list items of the results; returns the items the API rated. */
export async function searchAndRead(
  page: Page,
  traffic: Traffic,
  start: string,
  end: string,
): Promise<Map<string, any>> {
  const from = traffic.api.length;
  await search(page, start, end);
  await resultItem(page, 'Touring Kayak')
    .or(resultItem(page, 'Lakeside Cabin'))
    .first()
    .waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  let items = new Map<string, any>();
  await expect
    .poll(
      async () => {
        await traffic.settle();
        items = ratedItems(traffic, from, { start, end });
        return items.size;
      },
      { timeout: STEP_TIMEOUT, message: "the search's rated items are recorded" },
    )
    .toBeGreaterThan(0);
  return items;
}
