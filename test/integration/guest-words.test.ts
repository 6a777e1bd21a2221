import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { testDeps } from '#test/support/deps.ts';
import { createTestDb, setUsed } from '#test/support/dynamo.ts';
import { invoke } from '#test/support/events.ts';
import { demoTenantJson, makeTenant } from '#test/support/tenant.ts';

// Issue 32: whatever a guest searches for on the demo tenant, through the real handler as the public
// widget calls it, every refused item says why in guest words: no raw date, no parameter id, no wrong
// plural. The clock is fixed at Sunday 1 November 2026, noon in Toronto, so Christmas is this year's.

const NOW = Date.UTC(2026, 10, 1, 17);
const TODAY = '20261101';

/** What a guest must never read: raw dates, parameter ids, "1 nights" and "2 night". */
const RAW =
  /\d{8}|\d{4}-\d{2}-\d{2}|start_time|end_time|_item|\bqty\b|\badults\b|\bchildren\b|\bparam\b|\b1 (nights|days|hours)\b|\b([02-9]|\d{2,}) (night|day|hour)\b/;

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;

beforeAll(async () => {
  db = await createTestDb('guest-words');
  await writeTenant(db, makeTenant(demoTenantJson()), NOW);
  handlers = createAllHandlers(testDeps(db, { clock: () => NOW }));
  // The cabin sold out on one night: the package built on it is too.
  await setUsed(db, 1, '20261120', 99);
});

const search = async (query: string) => {
  const { json } = await invoke(handlers.items, { path: 'item', query });
  if (!json.items) throw new Error(`${query}: ${JSON.stringify(json.request)}`);
  return Object.values(
    json.items as Record<string, { name: string; rate: { status: string; error?: string } }>,
  );
};

// Refused searches: past, today, too short, too long, too far ahead, Christmas, a Monday (the canoe tour
// is closed), a sold-out night, hours missing or on the half hour, guests out of bounds, a
// quantity of 0 or 99, an unknown discount code, and two months of the canoe tour's closed Mondays.
const SEARCHES = [
  `start_date=20261025&end_date=20261027`,
  `date=${TODAY}`,
  `start_date=20261110&end_date=20261111`,
  `start_date=20261110&end_date=20261210`,
  `start_date=20271201&end_date=20271203`,
  `start_date=20261223&end_date=20261227&param[adults]=2`,
  `start_date=20261109&end_date=20261109&param[adults]=2`,
  `start_date=20261119&end_date=20261122&param[adults]=2`,
  `date=20261115&start_time=1030&end_time=1130`,
  `start_date=20261115&end_date=20261118&param[adults]=0&param[children]=9`,
  `start_date=20261115&end_date=20261118&param[adults]=9&param[qty]=0`,
  `start_date=20261115&end_date=20261116&param[qty]=99&discount_code=NOPE`,
  `start_date=20261102&end_date=20261231&param[adults]=2`,
];

describe('guest words on the demo tenant', () => {
  it('gives every refused item a reason, and no reason a raw date, a parameter id or a wrong plural', async () => {
    const reasons: string[] = [];
    for (const query of SEARCHES) {
      for (const item of await search(query)) {
        if (item.rate.status !== 'AVAILABLE') {
          expect(item.rate.error, `${item.name} for ${query}`).toBeTruthy();
        }
        if (item.rate.error) reasons.push(item.rate.error);
      }
    }
    expect(reasons.length).toBeGreaterThan(50);
    expect(reasons.filter((reason) => RAW.test(reason))).toEqual([]);
    // One reason is said once: a required quantity of 0 and "nothing chosen" are the same words.
    expect(reasons.filter((reason) => new Set(reason.split('. ')).size < reason.split('. ').length)).toEqual(
      [],
    );
    // Each refusal above appears, so the sweep covers what it claims to.
    for (const expected of [
      /^Dates in the past cannot be booked; choose today or a later date/,
      /Book at least 1 day ahead; choose a later date/,
      /Stays are 2 nights at least; choose a later end date/,
      /Stays are 14 nights at most; choose an earlier end date/,
      /Bookings are 1 day at most; choose an earlier end date/,
      /Book at most 365 days ahead; choose an earlier date/,
      /Closed on Thursday, December 24 and Friday, December 25; choose other dates/,
      /Closed on Monday, November 9; choose other dates/,
      /Lakeside Cabin is closed on Thursday, December 24 and Friday, December 25; choose other dates/,
      /Lakeside Cabin is sold out on Friday, November 20; try other dates/,
      /Choose a start and end time for this item/,
      /This item is booked by the hour; choose times on the hour/,
      /Adults: choose at least 1/,
      /Children: choose at most \d+/,
      /Quantity: choose at least 1/,
      /Discount code NOPE is not valid; check it or leave it out/,
      /and \d+ more dates; choose other dates/,
    ]) {
      expect(
        reasons.some((reason) => expected.test(reason)),
        String(expected),
      ).toBe(true);
    }
  });

  it('rates the Christmas package with its reason, as the tester asked for it', async () => {
    const { json } = await invoke(handlers.items, {
      path: 'item/8',
      query: 'start_date=20261223&end_date=20261227&param[adults]=2',
    });
    expect(json.item.rate).toMatchObject({
      status: 'UNAVAILABLE',
      error: 'Lakeside Cabin is closed on Thursday, December 24 and Friday, December 25; choose other dates',
    });
    expect(json.item.rate.summary).toMatchObject({
      title: 'Unavailable',
      date: 'Wed Dec 23 - Sat Dec 26, 2026',
    });
  });
});
