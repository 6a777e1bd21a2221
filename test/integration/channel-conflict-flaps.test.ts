import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { listChannelEvents } from '#lib/channels/repository.ts';
import type { ChannelSyncDeps } from '#lib/channels/sync.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { bookNights, channelFeed, fakeChannels, syncNow } from '#test/support/channel-world.ts';
import { testDeps } from '#test/support/deps.ts';
import { invoke, staffBasic } from '#test/support/events.ts';
import { sessionClient } from '#test/support/session.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// Issue 41, item 3: a flapping feed announces a conflict once. A feed alternating [D, E] and [E] while a
// cart held D opened and closed the same conflict on every flap (4 flaps: 8 audit records, 4
// `channel.conflict` events for one cart). A conflict closed recently for the same slot and bookings is
// re-opened without being announced again; conflict events of one round are capped (a sync-now is a round
// of one), with a count of the rest; the channel's audit records expire (TTL).

const ZONE = 'America/Toronto';
const today = todayIn(ZONE, Date.now());
const d = (days: number) => addDays(today, days);
const FLAP = 'https://www.airbnb.com/calendar/ical/flap.ics?s=secret';
const MANY = 'https://www.airbnb.com/calendar/ical/many.ics?s=secret';
const FLAKY = 'https://www.airbnb.com/calendar/ical/flaky.ics?s=secret';
const HOUR = 3_600_000;

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
const channels = fakeChannels();
let deps: ChannelSyncDeps;
const started = Date.now();
const at = (ms: number): ChannelSyncDeps => ({ ...deps, clock: () => started + ms });

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'chflaps',
    makeTenantJson({
      items: [
        makeItem({ item_id: 1, sku: 'flap', name: 'Flap Cabin', unit: 'N', stock: 1 }),
        makeItem({ item_id: 2, sku: 'many', name: 'Many Cabin', unit: 'N', stock: 1 }),
        makeItem({ item_id: 3, sku: 'flaky', name: 'Flaky Cabin', unit: 'N', stock: 1 }),
      ],
      webhooks: [{ id: 'ops', url: 'https://hooks.example.com/in', events: ['channel.*'] }],
      channels: [
        { id: 'flap', item_id: 1, url: FLAP, name: 'Airbnb flap' },
        { id: 'many', item_id: 2, url: MANY, name: 'Airbnb many' },
        { id: 'flaky', item_id: 3, url: FLAKY, name: 'Airbnb flaky' },
      ],
    }),
  ));
  staff = await staffBasic(db);
  deps = { db, fetchFeed: channels.fetchFeed, policy: 'deployed' };
});

const eventsOf = async (channelId: string, type: string) =>
  (await listChannelEvents(db, { channelId, limit: 500 })).filter((event) => event.type === type);

const conflictDeliveries = async () => {
  const deliveries = await invoke(handlers.admin, {
    path: 'webhook/ops/delivery',
    query: 'limit=100',
    headers: { authorization: staff },
  });
  return (deliveries.json.deliveries as { event_type: string }[]).filter(
    (entry) => entry.event_type === 'channel.conflict',
  );
};

describe('a feed alternating [D, E] and [E] while a cart holds D', () => {
  it('announces the conflict on D once over four flaps, and records it opened and closed once', async () => {
    const client = sessionClient(handlers);
    const slip = await client.slip(1, `start_date=${d(20)}&end_date=${d(21)}&param[qty]=1`);
    expect((await client.add([slip])).status).toBe(200);
    const both = channelFeed([
      [d(20), d(21)],
      [d(30), d(31)],
    ]);
    const onlyE = channelFeed([[d(30), d(31)]]);
    for (let flap = 0; flap < 4; flap += 1) {
      channels.serve(FLAP, { body: both });
      const open = (await syncNow(at(flap * 10 * 60_000), 'flap')).channels[0];
      channels.serve(FLAP, { body: onlyE });
      const close = (await syncNow(at((flap * 10 + 5) * 60_000), 'flap')).channels[0];
      expect({ open: open?.conflicts_opened, close: close?.conflicts_closed }).toEqual({ open: 1, close: 1 });
    }
    expect((await eventsOf('flap', 'channel.conflict')).map((event) => event.data.slot)).toEqual([d(20)]);
    expect((await eventsOf('flap', 'channel.conflict_closed')).map((event) => event.data.slot)).toEqual([
      d(20),
    ]);
    expect(await conflictDeliveries()).toHaveLength(1);
  });

  it('shows the re-opened conflict with the event that announced it', async () => {
    channels.serve(FLAP, { body: channelFeed([[d(20), d(21)]]) });
    await syncNow(at(50 * 60_000), 'flap');
    const listed = await invoke(handlers.channels, { path: 'channel', headers: { authorization: staff } });
    const [announced] = await eventsOf('flap', 'channel.conflict');
    expect(listed.json.channels.flap.conflicts).toEqual([
      expect.objectContaining({ slot: d(20), bookings: [], event_id: announced?.event_id }),
    ]);
  });

  it('announces it again once it has stayed closed for over a day', async () => {
    channels.serve(FLAP, { body: channelFeed([[d(30), d(31)]]) });
    await syncNow(at(HOUR), 'flap');
    channels.serve(FLAP, { body: channelFeed([[d(20), d(21)]]) });
    const reopened = (await syncNow(at(HOUR + 25 * HOUR), 'flap')).channels[0];
    expect(reopened?.conflicts_opened).toBe(1);
    expect(await eventsOf('flap', 'channel.conflict')).toHaveLength(2);
    expect(await conflictDeliveries()).toHaveLength(2);
  });
});

describe('a sync-now that re-opens a conflict without announcing it', () => {
  it('answers it as re-opened', async () => {
    const withFeeds = createAllHandlers({ ...testDeps(db), fetchFeed: channels.fetchFeed });
    const syncRoute = async () =>
      (
        await invoke(withFeeds.channels, {
          path: 'channel/flap/sync',
          method: 'POST',
          headers: { authorization: staff },
        })
      ).json.sync;
    channels.serve(FLAP, { body: channelFeed([[d(30), d(31)]]) });
    expect(await syncRoute()).toMatchObject({
      conflicts_closed: 1,
      conflicts_opened: 0,
      conflicts_reopened: 0,
    });
    channels.serve(FLAP, { body: channelFeed([[d(20), d(21)]]) });
    expect(await syncRoute()).toMatchObject({ conflicts_opened: 1, conflicts_reopened: 1 });
  });
});

describe("one channel's sync that finds many dates sold here", () => {
  it('emits ten channel.conflict events, the last with the count of the rest, and opens every conflict', async () => {
    const booking = await bookNights(handlers, 2, d(40), d(65));
    channels.serve(MANY, { body: channelFeed([[d(40), d(65)]]) });
    const result = (await syncNow(deps, 'many')).channels[0];
    expect(result).toMatchObject({ conflicts_opened: 25, conflicts: 25 });
    const events = await eventsOf('many', 'channel.conflict');
    expect(events).toHaveLength(10);
    expect(events.map((event) => event.data.more ?? 0).sort((a, b) => Number(a) - Number(b))).toEqual([
      ...Array(9).fill(0),
      15,
    ]);
    for (const event of events) expect(event.data.bookings).toEqual([booking.id]);
    const listed = await invoke(handlers.channels, { path: 'channel', headers: { authorization: staff } });
    expect(listed.json.channels.many.conflicts).toHaveLength(25);
    // Each conflict names the event that announced it: its own, or the last one, which counts it.
    const announcedBy = new Set(events.map((event) => event.event_id));
    for (const conflict of listed.json.channels.many.conflicts)
      expect(announcedBy).toContain(conflict.event_id);
    expect((await conflictDeliveries()).length).toBe(2 + 10);
  });

  it('records ten closes and one record with the count of the rest when they all leave the feed', async () => {
    channels.serve(MANY, { body: channelFeed([[d(70), d(71)]]) });
    const result = (await syncNow(at(2 * HOUR), 'many')).channels[0];
    expect(result).toMatchObject({ conflicts_closed: 25, conflicts: 0 });
    const closed = await eventsOf('many', 'channel.conflict_closed');
    expect(closed).toHaveLength(11);
    expect(closed.filter((event) => event.data.more !== undefined).map((event) => event.data.more)).toEqual([
      15,
    ]);
  });
});

describe('a feed flapping between readable and unreadable', () => {
  // Review of issue 41: each flap was a new run of failures (a `channel.failed` and a `channel.recovered`
  // each time), and `failing_since` started again, so the failing alarm never fired for a feed failing
  // every other read.
  const MINUTE = 60_000;
  const good = () => channelFeed([[d(80), d(81)]]);
  const errorPage = { body: '<html><body>Service unavailable</body></html>' };
  const listed = async () =>
    (await invoke(handlers.channels, { path: 'channel', headers: { authorization: staff } })).json.channels
      .flaky;

  it('announces its failure once, and keeps failing since the first failure over the flaps', async () => {
    const start = 30 * HOUR;
    for (let flap = 0; flap < 4; flap += 1) {
      channels.serve(FLAKY, { body: good() });
      expect((await syncNow(at(start + flap * 10 * MINUTE), 'flaky')).channels[0]?.outcome).not.toBe(
        'failed',
      );
      channels.serve(FLAKY, errorPage);
      expect((await syncNow(at(start + (flap * 10 + 5) * MINUTE), 'flaky')).channels[0]?.outcome).toBe(
        'failed',
      );
    }
    expect(await eventsOf('flaky', 'channel.failed')).toHaveLength(1);
    expect(await eventsOf('flaky', 'channel.recovered')).toHaveLength(1);
    expect(await listed()).toMatchObject({
      state: 'failing',
      failing_since: Math.floor((started + start + 5 * MINUTE) / 1000),
    });
  });

  it('announces a failure again once the feed has read without one for an hour', async () => {
    const last = 30 * HOUR + 35 * MINUTE;
    channels.serve(FLAKY, { body: good() });
    await syncNow(at(last + 10 * MINUTE), 'flaky');
    channels.serve(FLAKY, errorPage);
    await syncNow(at(last + 61 * MINUTE), 'flaky');
    expect(await eventsOf('flaky', 'channel.failed')).toHaveLength(2);
    expect(await listed()).toMatchObject({
      state: 'failing',
      failing_since: Math.floor((started + last + 61 * MINUTE) / 1000),
    });
  });
});

describe("a channel's audit records", () => {
  it('expire with the tenant’s event retention (30 days by default)', async () => {
    const events = await listChannelEvents(db, { channelId: 'flap', limit: 500 });
    expect(events.length).toBeGreaterThan(0);
    for (const event of events)
      expect((event as unknown as { ttl: number }).ttl).toBe(Math.floor(event.at / 1000) + 30 * 86_400);
  });

  it('leave every counter as the holds, bookings and blocks say', async () => {
    expect((await runReconcile(db, { fix: false, now: Date.now() })).discrepancies).toEqual([]);
  });
});
