import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { isInactive } from '#lib/bookings/booking.ts';
import type { FeedRequest, FeedResponse } from '#lib/channels/feed-fetch.ts';
import { rotateFeedToken } from '#lib/channels/feed-tokens.ts';
import { listChannelEvents, listConflicts } from '#lib/channels/repository.ts';
import { scanHoldings } from '#lib/housekeeping/reconcile-repository.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { syncNow } from '#test/support/channel-world.ts';
import { testDeps } from '#test/support/deps.ts';
import { formBody, invoke } from '#test/support/events.ts';
import { expectInvariant, sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// Issue 30, item 8: two tenants of this service sell the same cabin, each importing the other's export
// (with a token made for it, so its own sales are not echoed back), while guests book on both sides at
// once. At the end no night is sold on both sides unless it was reported as a conflict, and every conflict
// was emitted once.

type Side = { name: 'a' | 'b'; db: Db; handlers: ReturnType<typeof createAllHandlers> };

const today = todayIn('America/Toronto', Date.now());
const NIGHTS = 16;
const night = (index: number) => addDays(today, 5 + index);
let sides: Record<'a' | 'b', Side>;

/** Serves a URL of either side by invoking its channels handler, as the real fetcher would over HTTP. */
async function fetchFromSides(request: FeedRequest): Promise<FeedResponse> {
  const url = new URL(request.url);
  const side = sides[url.hostname === 'a.test' ? 'a' : 'b'];
  const response = await invoke(side.handlers.channels, {
    path: url.pathname.replace('/api/3.0/', ''),
    query: url.search.slice(1),
    headers: {
      ...(request.etag ? { 'if-none-match': request.etag } : {}),
      ...(request.lastModified ? { 'if-modified-since': request.lastModified } : {}),
    },
  });
  if (response.status === 304) return { outcome: 'unchanged', status: 304, durationMs: 1 };
  if (response.status !== 200)
    return { outcome: 'failed', status: response.status, error: `HTTP ${response.status}`, durationMs: 1 };
  return {
    outcome: 'fetched',
    status: 200,
    body: response.text,
    ...(response.headers.etag ? { etag: response.headers.etag } : {}),
    ...(response.headers['last-modified'] ? { lastModified: response.headers['last-modified'] } : {}),
    durationMs: 1,
  };
}

const tenantOf = (name: 'a' | 'b', otherToken: string) =>
  makeTenantJson({
    tenant: `side-${name}`,
    company: {
      account_id: name === 'a' ? 1 : 2,
      host_id: `${name}.test`,
      name: `Side ${name}`,
      email: `hello@${name}.test`,
      country_id: 'CA',
      timezone: 'America/Toronto',
    },
    items: [makeItem({ item_id: 1, sku: 'cabin', name: 'Lake Cabin', unit: 'N', stock: 1 })],
    channels: [
      {
        id: name === 'a' ? 'b' : 'a',
        item_id: 1,
        url: `https://${name === 'a' ? 'b' : 'a'}.test/api/3.0/item/1/ical?token=${otherToken}`,
        name: `Side ${name === 'a' ? 'b' : 'a'}`,
      },
    ],
  });

beforeAll(async () => {
  // Each side's tenant names the other's feed, whose token exists only once the other table does: load
  // with a placeholder, make the tokens, then load again with the real URLs (a reload changes no stock).
  const a = await loadTenant('round-a', tenantOf('a', 'pending'));
  const b = await loadTenant('round-b', tenantOf('b', 'pending'));
  const tokenForB = await rotateFeedToken(a.db, {
    scope: { kind: 'item', itemId: 1, channelId: 'b' },
    now: Date.now(),
  });
  const tokenForA = await rotateFeedToken(b.db, {
    scope: { kind: 'item', itemId: 1, channelId: 'a' },
    now: Date.now(),
  });
  await writeTenant(a.db, makeTenant(tenantOf('a', tokenForA)), Date.now());
  await writeTenant(b.db, makeTenant(tenantOf('b', tokenForB)), Date.now());
  sides = {
    a: { name: 'a', db: a.db, handlers: createAllHandlers(testDeps(a.db)) },
    b: { name: 'b', db: b.db, handlers: createAllHandlers(testDeps(b.db)) },
  };
});

/** A guest trying to book `nights` nights from `first` on one side; false when the cabin is taken. */
async function tryToBook(side: Side, first: number, nights: number): Promise<boolean> {
  const client = sessionClient(side.handlers);
  const rated = await invoke(side.handlers.items, {
    path: 'item/1',
    query: `start_date=${night(first)}&end_date=${night(first + nights)}&param[qty]=1`,
  });
  const slip = rated.json.item?.rate?.slip as string | undefined;
  if (!slip) return false;
  const added = await client.add([slip]);
  if (added.status !== 200) return false;
  const created = await invoke(side.handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({
      session_id: sessionOf(added).id as string,
      'form[customer_name]': 'Guest',
      'form[customer_email]': 'guest@example.com',
    }),
    contentType: 'application/x-www-form-urlencoded',
  });
  expect(created.status).toBe(200);
  return true;
}

/** The nights guests booked on a side, from its committed bookings. */
async function bookedNights(side: Side): Promise<Set<string>> {
  const { bookings } = await scanHoldings(side.db);
  const nights = new Set<string>();
  for (const booking of bookings) {
    if (isInactive(booking.status_id)) continue;
    for (const counter of Object.keys(booking.holds)) nights.add(counter.split('|')[1] ?? '');
  }
  return nights;
}

describe('two tenants syncing the same cabin with each other', () => {
  it('oversells nothing that is not reported as a conflict, and emits every conflict once', async () => {
    const deps = (side: Side) => ({ db: side.db, fetchFeed: fetchFromSides, policy: 'local' as const });
    // A deterministic storm: guests on both sides ask for overlapping stays while both sides sync.
    const plan = Array.from({ length: 14 }, (_, index) => ({
      first: (index * 5) % (NIGHTS - 2),
      nights: 1 + (index % 3),
    }));
    const guests = (side: Side, offset: number) => async () => {
      for (const [index, stay] of plan.entries()) {
        if (index % 2 === offset) await tryToBook(side, stay.first, stay.nights);
      }
    };
    const syncs = (side: Side) => async () => {
      for (let round = 0; round < 4; round += 1) await syncNow(deps(side), side.name === 'a' ? 'b' : 'a');
    };
    await Promise.all([
      guests(sides.a, 0)(),
      guests(sides.b, 1)(),
      guests(sides.a, 1)(),
      syncs(sides.a)(),
      syncs(sides.b)(),
    ]);
    // Settle: each side reads the other's final feed, twice.
    for (let round = 0; round < 2; round += 1) {
      await syncNow(deps(sides.a), 'b');
      await syncNow(deps(sides.b), 'a');
    }

    const [bookedA, bookedB] = [await bookedNights(sides.a), await bookedNights(sides.b)];
    const conflictsA = await listConflicts(sides.a.db, 'b');
    const conflictsB = await listConflicts(sides.b.db, 'a');
    const reported = new Set([...conflictsA, ...conflictsB].map((conflict) => conflict.slot));
    const doubleSold = [...bookedA].filter((date) => bookedB.has(date));
    expect(bookedA.size + bookedB.size).toBeGreaterThan(0);
    for (const date of doubleSold) expect(reported, `night ${date} sold on both sides`).toContain(date);

    // Once each: an event per conflict, none for a night sold on one side only (no echo).
    for (const [side, conflicts, channel] of [
      [sides.a, conflictsA, 'b'],
      [sides.b, conflictsB, 'a'],
    ] as const) {
      const events = (await listChannelEvents(side.db, { channelId: channel, limit: 500 })).filter(
        (event) => event.type === 'channel.conflict',
      );
      expect(events.map((event) => event.data.slot).sort()).toEqual(
        conflicts.map((conflict) => conflict.slot).sort(),
      );
      for (const conflict of conflicts) expect(doubleSold).toContain(conflict.slot);
    }
    // Every night sold on one side only is blocked on the other.
    for (const date of bookedA)
      if (!bookedB.has(date)) expect(await bookedOrBlocked(sides.b, date)).toBe(true);
    for (const date of bookedB)
      if (!bookedA.has(date)) expect(await bookedOrBlocked(sides.a, date)).toBe(true);
    await expectInvariant(sides.a.db);
    await expectInvariant(sides.b.db);
  });
});

/** Whether a side's counter for a night is taken (by a booking or a channel block). */
async function bookedOrBlocked(side: Side, date: string): Promise<boolean> {
  const { counters } = await scanHoldings(side.db);
  return counters.some((counter) => counter.itemId === 1 && counter.slot === date && counter.used >= 1);
}
