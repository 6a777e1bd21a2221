import ICAL from 'ical.js';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { readFeed } from '#lib/channels/feed-parse.ts';
import { rotateFeedToken } from '#lib/channels/feed-tokens.ts';
import { addDays, dayOfWeek, localInstant, todayIn, utcHourKey } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { channelFeed, fakeChannels, staffBooks, syncNow } from '#test/support/channel-world.ts';
import { testDeps } from '#test/support/deps.ts';
import { readUsed, recordCommands, setUsed } from '#test/support/dynamo.ts';
import { invoke, staffBasic, type TestResponse } from '#test/support/events.ts';
import { readByNodeIcal } from '#test/support/ical.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// The channel feeds this service publishes (issue 30, items 1 and 2): an item's unsellable dates for
// Airbnb and the like, and the staff calendar of bookings, each behind its own secret token.

const ZONE = 'America/Toronto';
const today = todayIn(ZONE, Date.now());
const d = (days: number) => addDays(today, days);
const AIRBNB = 'https://www.airbnb.com/calendar/ical/7.ics?s=x';

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let itemToken: string;
let channelToken: string;
const channels = fakeChannels();

// A closed day of the week that is not today's, so the tests below can predict it.
const closedDow = (dayOfWeek(today) + 3) % 7;

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'feeds',
    makeTenantJson({
      // Feeds answer whoever holds the token, even when the API asks everyone else for credentials.
      settings: { booking_code_prefix: 'FEED', public_api: false },
      items: [
        makeItem({
          item_id: 7,
          sku: 'cabin',
          name: 'Cabin "North"; lake, view',
          unit: 'N',
          stock: 2,
          rules: { closed_dow: [closedDow], lead_days: 2, advance_days: 365 },
        }),
        makeItem({ item_id: 8, sku: 'kayak', name: 'Kayak', unit: 'D', stock: 1 }),
        makeItem({
          item_id: 9,
          sku: 'sauna',
          name: 'Sauna',
          unit: 'H',
          stock: 1,
          hours: { open: '09:00', close: '12:00' },
          rules: { advance_days: 30 },
        }),
      ],
      channels: [{ id: 'airbnb', item_id: 7, url: AIRBNB, name: 'Airbnb', units: 2 }],
    }),
  ));
  itemToken = await rotateFeedToken(db, { scope: { kind: 'item', itemId: 7 }, now: Date.now() });
  channelToken = await rotateFeedToken(db, {
    scope: { kind: 'item', itemId: 7, channelId: 'airbnb' },
    now: Date.now(),
  });
});

// Counters are set directly (setUsed) to shape what a feed must show, so this file does not hold the
// stock invariant after each test as the sync and round-trip files do.

const feed = (path: string, query: string, headers: Record<string, string> = {}, over = handlers) =>
  invoke(over.channels, { path, query, headers });

/** The all-day runs of a feed as `first..last` (inclusive) strings, read by ical.js through our reader. */
const runsOf = async (response: TestResponse) =>
  (await readFeed(response.text, { timeZone: ZONE, from: today, to: d(400) })).taken.map((event) =>
    event.kind === 'dates' ? `${event.first}..${addDays(event.endExclusive, -1)}` : 'timed',
  );

/** The runs expected from the closed day of the week alone, from today to the last date. */
const closedDays = (last: number) => {
  const runs: string[] = [];
  for (let index = 0; index <= last; index += 1)
    if (dayOfWeek(d(index)) === closedDow) runs.push(`${d(index)}..${d(index)}`);
  return runs;
};

describe('GET item/{id}/ical', () => {
  it('answers the same 404 as an unknown item to a missing, wrong or foreign token', async () => {
    const unknown = await feed('item/999/ical', `token=${itemToken}`);
    expect(unknown.status).toBe(404);
    const strip = (response: TestResponse) => ({
      status: response.status,
      error: response.json.request.error,
      headers: Object.keys(response.headers).sort(),
    });
    for (const query of ['', 'token=', `token=${itemToken}x`, `token=${'a'.repeat(150)}`]) {
      const refused = await feed('item/7/ical', query);
      expect(strip(refused)).toEqual({
        ...strip(unknown),
        error: { ...strip(unknown).error, details: 'Item 7 not found' },
      });
    }
    // A token opens its own item only.
    expect((await feed('item/8/ical', `token=${itemToken}`)).status).toBe(404);
    expect((await feed('item/007/ical', `token=${itemToken}`)).status).toBe(404);
  });

  it('lists each run of unsellable dates as one all-day "Not available" event, without guest data', async () => {
    await setUsed(db, 7, d(10), 2);
    await setUsed(db, 7, d(11), 2);
    await setUsed(db, 7, d(12), 1);
    const response = await feed('item/7/ical', `token=${itemToken}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const expected = [...closedDays(365), `${d(10)}..${d(11)}`].sort();
    expect((await runsOf(response)).sort()).toEqual(
      // A closed day next to the sold-out run joins it.
      mergeAdjacent(expected),
    );
    // The lead time (2 days) closes nothing for a channel; the advance limit (365 days) ends the feed.
    expect(response.text).not.toContain(`DTSTART;VALUE=DATE:${today}\r\nDTEND;VALUE=DATE:${d(2)}`);
    expect(response.text).not.toMatch(new RegExp(`DTSTART;VALUE=DATE:${d(366)}`));
    expect(
      response.text.match(/SUMMARY:(.*)\r\n/g)?.every((line) => line === 'SUMMARY:Not available\r\n'),
    ).toBe(true);
    expect(response.text).not.toMatch(/ATTENDEE|ORGANIZER|DESCRIPTION|@example\.com/);
  });

  it('parses in two independent parsers without a warning', async () => {
    const warn = vi.spyOn(console, 'warn');
    const error = vi.spyOn(console, 'error');
    try {
      const response = await feed('item/7/ical', `token=${itemToken}`);
      const parsed = new ICAL.Component(ICAL.parse(response.text));
      expect(parsed.getFirstPropertyValue('x-wr-calname')).toBeDefined();
      const ours = (await readFeed(response.text, { timeZone: ZONE, from: today, to: d(400) })).taken;
      expect(readByNodeIcal(response.text)).toEqual(ours);
      expect(warn).not.toHaveBeenCalled();
      expect(error).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it('answers 304 to a matching ETag or Last-Modified, and a new ETag once a run changes', async () => {
    const first = await feed('item/7/ical', `token=${itemToken}`);
    const etag = first.headers.etag ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const lastModified = first.headers['last-modified'] ?? '';
    expect(Date.parse(lastModified)).not.toBeNaN();
    const again = await feed('item/7/ical', `token=${itemToken}`);
    expect(again.text).toBe(first.text);
    const matched = await feed('item/7/ical', `token=${itemToken}`, { 'if-none-match': `W/${etag}` });
    expect(matched.status).toBe(304);
    expect(matched.text).toBe('');
    const since = await feed('item/7/ical', `token=${itemToken}`, { 'if-modified-since': lastModified });
    expect(since.status).toBe(304);
    // A held cart changes what can be sold: the run grows, the feed changes.
    await setUsed(db, 7, d(12), 2);
    const changed = await feed('item/7/ical', `token=${itemToken}`, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(await runsOf(changed)).toContain(`${d(10)}..${d(12)}`);
    await setUsed(db, 7, d(12), 1);
  });

  it("leaves the reading channel's own blocks out of its feed, and never reads per date", async () => {
    channels.serve(AIRBNB, { body: channelFeed([[d(50), d(52)]]) });
    await syncNow({ db, fetchFeed: channels.fetchFeed, policy: 'deployed' }, 'airbnb');
    expect(await readUsed(db, 7, d(50))).toBe(2);
    const forAll = await feed('item/7/ical', `token=${itemToken}`);
    expect((await runsOf(forAll)).some((run) => run.startsWith(d(50)) || run.endsWith(`..${d(51)}`))).toBe(
      true,
    );

    const recorded = recordCommands(db);
    const over = createAllHandlers(testDeps(recorded.db));
    const forAirbnb = await feed('item/7/ical', `token=${channelToken}`, {}, over);
    expect(forAirbnb.status).toBe(200);
    for (const run of await runsOf(forAirbnb)) expect(run.includes(d(50)) || run.includes(d(51))).toBe(false);
    // The token, the configuration's cache, one counter query over 365 days, one query of the channel's
    // blocks, and the stamp: a handful of calls, whatever the number of dates.
    const reads = recorded.commands.filter((name) => name === 'QueryCommand');
    expect(reads.length).toBeLessThanOrEqual(4);
    expect(recorded.commands.length).toBeLessThanOrEqual(10);
  });

  it('writes an hourly item as timed events in the tenant zone, with its VTIMEZONE', async () => {
    const token = await rotateFeedToken(db, { scope: { kind: 'item', itemId: 9 }, now: Date.now() });
    // Sold out from 10:00 to 12:00 local time on day 5: two hour counters.
    for (const hour of [10, 11]) await setUsed(db, 9, utcHourKey(localInstant(d(5), hour * 60, ZONE)), 1);
    const response = await feed('item/9/ical', `token=${token}`);
    expect(response.status).toBe(200);
    expect(response.text).toContain('BEGIN:VTIMEZONE\r\nTZID:America/Toronto');
    const local = `${d(5)}T100000`;
    expect(response.text).toContain(`DTSTART;TZID=America/Toronto:${local}`);
    expect(response.text).toContain(`DTEND;TZID=America/Toronto:${d(5)}T120000`);
    const [timed] = (await readFeed(response.text, { timeZone: ZONE, from: today, to: d(40) })).taken;
    expect(timed).toEqual({
      kind: 'instants',
      start: localInstant(d(5), 600, ZONE),
      end: localInstant(d(5), 720, ZONE),
    });
  });

  it('rotating a token stops the old one at once', async () => {
    const token = await rotateFeedToken(db, { scope: { kind: 'item', itemId: 8 }, now: Date.now() });
    expect((await feed('item/8/ical', `token=${token}`)).status).toBe(200);
    const next = await rotateFeedToken(db, { scope: { kind: 'item', itemId: 8 }, now: Date.now() });
    expect((await feed('item/8/ical', `token=${token}`)).status).toBe(404);
    expect((await feed('item/8/ical', `token=${next}`)).status).toBe(200);
  });
});

describe('GET booking/ical', () => {
  it("lists active bookings with code, guest and items for the tenant's staff token, and 404s any other", async () => {
    const staff = await staffBasic(db);
    const code = await staffBooks(handlers, staff, {
      itemId: 8,
      query: `date=${d(20)}&param[qty]=1`,
      guest: 'Grace Hopper',
      email: 'grace@example.com',
    });
    const token = await rotateFeedToken(db, { scope: { kind: 'bookings' }, now: Date.now() });
    const response = await invoke(handlers.channels, { path: 'booking/ical', query: `token=${token}` });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const events = await readFeed(response.text, { timeZone: ZONE, from: today, to: d(60) });
    expect(events.taken).toContainEqual({ kind: 'dates', first: d(20), endExclusive: d(21) });
    expect(response.text).toContain(`SUMMARY:${code} Grace Hopper (Kayak)`);
    expect(response.text).toContain(`UID:booking-${code}@test.example.com`);
    for (const wrong of ['', `token=${itemToken}`, 'token=nope'])
      expect((await invoke(handlers.channels, { path: 'booking/ical', query: wrong })).status).toBe(404);
  });
});

/** Sorted `first..last` runs with adjacent ones joined, as the feed writes them. */
function mergeAdjacent(runs: string[]): string[] {
  const merged: [string, string][] = [];
  for (const run of [...runs].sort()) {
    const [first = '', last = ''] = run.split('..');
    const previous = merged.at(-1);
    if (previous && addDays(previous[1], 1) >= first) previous[1] = last > previous[1] ? last : previous[1];
    else merged.push([first, last]);
  }
  return merged.map(([first, last]) => `${first}..${last}`);
}
