import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { axeViolations } from './accessibility.ts';
import { measureOverflow } from './page-helpers.ts';
import { formatMoney, normalize, STEP_TIMEOUT } from './widget-page.ts';
import { staffGet } from './widget-service.ts';
import { setUpWidgetSuite, type WidgetSuite } from './widget-suite.ts';

// What the browser tests of the guest's page (`/manage`, issue 44) share, on a widget suite whose `npm start`
// runs the Stripe stand-in: a booking paid in full there, the API's own answers to compare the page with, and
// the checks made at each step.

/** A booking as `booking/create` answers it, with its guest's link. */
export interface CreatedBooking {
  code: string;
  manage_url: string;
  total: string;
}

/** A date `days` from now, YYYY-MM-DD (UTC: far enough ahead that the zone does not matter). */
export const daysAhead = (days: number) =>
  new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A date field's YYYY-MM-DD moved by `days`. */
export const addDays = (date: string, days: number) =>
  new Date(Date.parse(date) + days * 86_400_000).toISOString().slice(0, 10);

/** The first date at least `days` from now that falls on `dow` (0 Sunday … 6 Saturday). */
export function nextDow(days: number, dow: number): string {
  const from = daysAhead(days);
  return addDays(from, (dow - new Date(from).getUTCDay() + 7) % 7);
}

/** The booking's token, from its guest's link. */
export const tokenOf = (created: { manage_url: string }) =>
  new URL(created.manage_url).searchParams.get('token') ?? '';

/** The page's part about the booking, spaces collapsed. */
export const shown = async (page: Page) => normalize(await page.locator('#manage').innerText());

/** axe finds nothing, and nothing is wider than the window. */
export async function clean(page: Page, step: string) {
  expect(await axeViolations(page), `axe at ${step}`).toEqual([]);
  const overflow = await measureOverflow(page);
  expect(overflow.offenders, `nothing wider than the window at ${step}`).toEqual([]);
  expect(overflow.scrollWidth).toBeLessThanOrEqual(overflow.viewport);
}

/** The helpers bound to the suite's service. */
export function manageWorld(suite: WidgetSuite) {
  /** The address of the stand-in `npm start` runs, as it printed it. */
  const standInUrl = () => /local stand-in for Stripe at (\S+)/.exec(suite.service.output())?.[1] ?? '';

  /** The stand-in's key, as it keeps it in DATA_DIR (docs/payments-stand-in.md, "State"). */
  async function standInKey(): Promise<string> {
    await fetch(`${standInUrl()}/c/pay/cs_test_none`);
    const file = join(suite.service.dataDir, 'stripe-stand-in.json');
    const texts = [file, `${file}.journal`].flatMap((path) =>
      existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [],
    );
    return texts.reduce((key, text) => {
      const record = JSON.parse(text);
      return record.secretKey ?? record.meta?.secretKey ?? key;
    }, '');
  }

  /** A call to the stand-in's controls (`/_standin/…`, docs/payments-stand-in.md) with its key. */
  async function standIn(path: string, body: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${standInUrl()}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await standInKey()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, `${path} on the stand-in`).toBeLessThan(300);
  }

  /** A session holding `item` from `start` to `end` (YYYY-MM-DD), with `params` (`qty=2`) when given. */
  async function hold(item: number, start: string, end: string, params = ''): Promise<string> {
    const query = `start_date=${start}&end_date=${end}${params ? `&${params}` : ''}`;
    const rated: any = await (await fetch(`${suite.apiBase}/item/${item}?${query}`)).json();
    const slip = rated?.item?.rate?.slip;
    expect(slip, `item ${item} bookable ${query}: ${JSON.stringify(rated?.item?.rate)}`).toBeTruthy();
    const response = await fetch(`${suite.apiBase}/booking/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ 'slip[]': slip }).toString(),
    });
    const json: any = await response.json();
    expect(response.status, JSON.stringify(json.request)).toBe(200);
    return json.booking.session.id as string;
  }

  /**
   * `item` (the kayak unless said) booked from `start` to `end` and paid in full at the stand-in (its webhook
   * arrived).
   */
  async function paidBooking(
    start: string,
    end: string,
    options: { item?: number; params?: string } = {},
  ): Promise<CreatedBooking> {
    const sessionId = await hold(options.item ?? 3, start, end, options.params);
    const response = await fetch(`${suite.apiBase}/booking/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        session_id: sessionId,
        'form[customer_name]': 'Ada Lovelace',
        'form[customer_email]': 'ada@example.com',
      }).toString(),
    });
    const created = ((await response.json()) as any).booking;
    expect(response.status, JSON.stringify(created)).toBe(200);
    const checkout = new URL(created.payment_url).pathname.split('/').at(-1);
    await standIn(`/_standin/checkout/${checkout}/pay`, {});
    await expect
      .poll(async () => (await staffGet(suite.apiBase, `booking/${created.code}`)).booking?.paid_total, {
        timeout: STEP_TIMEOUT,
      })
      .toBe(created.total);
    return created;
  }

  /** The cancel's quote the API gives the booking's token now (what the page must show). */
  const quoteOf = async (created: CreatedBooking): Promise<any> =>
    (await fetch(`${suite.apiBase}/booking/${created.code}/manage/cancel?token=${tokenOf(created)}`)).json();

  /** The change's quote the API gives the booking's token now for `change` (`start_date=…&param[qty]=2`). */
  const changeQuoteOf = async (created: CreatedBooking, change: string): Promise<any> =>
    (
      await fetch(
        `${suite.apiBase}/booking/${created.code}/manage/change?token=${tokenOf(created)}&${change}`,
      )
    ).json();

  return { standInUrl, standIn, hold, paidBooking, quoteOf, changeQuoteOf };
}

/**
 * The widget suite of a browser test of the guest's page: the demo's tenant taking payment in full under a
 * cancellation policy (everything back 14 days ahead, half 2 days ahead, a 15.00 fee, closed 48 hours
 * before), its `npm start` on the Stripe stand-in; with the tenant's money format and the page's world.
 */
export function setUpManageSuite(name: string) {
  const tenant = makeWidgetTenant((raw) => {
    raw.settings.payment = { take: 'full' };
    raw.policy = {
      ...raw.policy,
      cancellation: {
        refunds: [
          { before: { days: 14 }, percent: 100 },
          { before: { days: 2 }, percent: 50 },
        ],
        fee: 1500,
        cutoff: { hours: 48 },
      },
    };
  });
  const suite = setUpWidgetSuite({
    tenant,
    name,
    env: { STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '', STRIPE_API_BASE: '' },
  });
  const money = (amount: string) => formatMoney(amount, tenant.locale.id, tenant.locale.currency);
  return { suite, money, world: manageWorld(suite) };
}
