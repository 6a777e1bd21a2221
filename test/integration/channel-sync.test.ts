import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { fetchFeed } from '#lib/channels/feed-fetch.ts';
import { listChannelEvents } from '#lib/channels/repository.ts';
import { syncChannels } from '#lib/channels/round.ts';
import { type ChannelSyncDeps, syncChannel } from '#lib/channels/sync.ts';
import { getConfig, listItems } from '#lib/config/repository.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { blockedSlots, bookNights, channelFeed, fakeChannels, syncNow } from '#test/support/channel-world.ts';
import { testDeps } from '#test/support/deps.ts';
import { readUsed, recordCommands, setUsed } from '#test/support/dynamo.ts';
import { formBody, invoke, staffBasic } from '#test/support/events.ts';
import { expectInvariant, sessionClient, sessionOf } from '#test/support/session.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// Channel sync (issue 30): feeds shaped as Airbnb and Booking.com publish them block exactly their dates on
// the counters, release them when they go, never release on a failure, and record every conflict once.

const AIRBNB = 'https://www.airbnb.com/calendar/ical/1.ics?s=secret';
const BOOKING = 'https://admin.booking.com/hotel/hoteladmin/ical.html?t=secret';
const today = todayIn('America/Toronto', Date.now());
const d = (days: number) => addDays(today, days);

let db: Db;
let handlers: ReturnType<typeof createAllHandlers>;
let staff: string;
const channels = fakeChannels();
let deps: ChannelSyncDeps;

beforeAll(async () => {
  ({ db, handlers } = await loadTenant(
    'channels',
    makeTenantJson({
      items: [
        makeItem({ item_id: 1, sku: 'cabin', name: 'Lake Cabin', unit: 'N', stock: 1 }),
        makeItem({ item_id: 2, sku: 'rooms', name: 'Rooms', unit: 'N', stock: 2 }),
      ],
      webhooks: [{ id: 'ops', url: 'https://hooks.example.com/in', events: ['channel.*'] }],
      channels: [
        { id: 'airbnb', item_id: 1, url: AIRBNB, name: 'Airbnb' },
        { id: 'booking', item_id: 2, url: BOOKING, name: 'Booking.com' },
      ],
    }),
  ));
  staff = await staffBasic(db);
  deps = { db, fetchFeed: channels.fetchFeed, policy: 'deployed' };
});

afterEach(async () => {
  await expectInvariant(db);
});

describe('a feed shaped as the channels publish it', () => {
  it('blocks exactly its dates (exclusive ends), and the calendar and rating count them as taken', async () => {
    channels.serve(AIRBNB, {
      body: channelFeed([
        [d(10), d(13)],
        [d(20), d(21), 'Airbnb (Not available)'],
      ]),
    });
    const [result] = (await syncNow(deps, 'airbnb')).channels;
    expect(result).toMatchObject({
      outcome: 'synced',
      listed: 4,
      taken: 4,
      released: 0,
      conflicts_opened: 0,
    });
    expect(await blockedSlots(db, 'airbnb')).toEqual([d(10), d(11), d(12), d(20)]);
    for (const date of [d(10), d(11), d(12), d(20)]) expect(await readUsed(db, 1, date)).toBe(1);
    expect(await readUsed(db, 1, d(13))).toBe(0);

    const cal = await invoke(handlers.items, {
      path: 'item/1/cal',
      query: `start_date=${d(9)}&end_date=${d(13)}`,
      headers: { authorization: staff },
    });
    expect(cal.json.item.cal).toEqual({ [d(9)]: 1, [d(10)]: 0, [d(11)]: 0, [d(12)]: 0, [d(13)]: 1 });
    const rated = await invoke(handlers.items, {
      path: 'item/1',
      query: `start_date=${d(11)}&end_date=${d(12)}&param[qty]=1`,
    });
    expect(rated.json.item.rate.status).not.toBe('AVAILABLE');
    expect(rated.json.item.rate.slip).toBeUndefined();
  });

  it('sends the last validators and changes nothing on a 304', async () => {
    const before = channels.requests.length;
    const [result] = (await syncNow(deps, 'airbnb')).channels;
    expect(channels.requests[before]?.etag).toMatch(/^"/);
    expect(result).toMatchObject({ outcome: 'unchanged', listed: 4, taken: 0, released: 0 });
    expect(await blockedSlots(db, 'airbnb')).toEqual([d(10), d(11), d(12), d(20)]);
  });

  it('applies only the edges of a rolling window', async () => {
    // Booking.com's "CLOSED - Not available" window from day 30 to 59, then moved on by a day.
    channels.serve(BOOKING, { body: channelFeed([[d(30), d(60), 'CLOSED - Not available']], 'booking.com') });
    const first = (await syncNow(deps, 'booking')).channels[0];
    expect(first).toMatchObject({ taken: 30, released: 0 });
    channels.serve(BOOKING, { body: channelFeed([[d(31), d(61), 'CLOSED - Not available']], 'booking.com') });
    const recorded = recordCommands(db);
    const moved = (await syncNow({ ...deps, db: recorded.db }, 'booking')).channels[0];
    expect(moved).toMatchObject({ outcome: 'synced', listed: 30, taken: 1, released: 1 });
    // One read of the channel, one transaction per edge, one state write: never a write per date listed.
    expect(recorded.commands.filter((name) => name === 'TransactWriteCommand')).toHaveLength(3);
    expect(await readUsed(db, 2, d(30))).toBe(0);
    expect(await readUsed(db, 2, d(60))).toBe(1);
  });
});

describe('failures keep what is known', () => {
  it('a feed that cannot be fetched or read releases nothing and emits channel.failed once', async () => {
    const held = await blockedSlots(db, 'airbnb');
    channels.serve(AIRBNB, { fail: 'HTTP 503' });
    expect((await syncNow(deps, 'airbnb')).channels[0]).toMatchObject({
      outcome: 'failed',
      error: 'HTTP 503',
    });
    channels.serve(AIRBNB, { body: '<html><body>Service unavailable</body></html>' });
    expect((await syncNow(deps, 'airbnb')).channels[0]).toMatchObject({ outcome: 'failed' });
    expect((await syncNow(deps, 'airbnb')).channels[0]?.error).toMatch(/^unreadable feed/);
    expect(await blockedSlots(db, 'airbnb')).toEqual(held);
    const events = await listChannelEvents(db, { channelId: 'airbnb', limit: 20 });
    expect(events.filter((event) => event.type === 'channel.failed')).toHaveLength(1);

    const listed = await invoke(handlers.channels, { path: 'channel', headers: { authorization: staff } });
    expect(listed.json.channels.airbnb).toMatchObject({ state: 'failing', dates_blocked: 4 });
    expect(listed.json.channels.airbnb.last_error).toMatch(/unreadable feed/);
    expect(listed.json.channels.airbnb.url).toBe('https://www.airbnb.com/***/***/***.ics');

    channels.serve(AIRBNB, {
      body: channelFeed([
        [d(10), d(13)],
        [d(20), d(21)],
      ]),
    });
    expect((await syncNow(deps, 'airbnb')).channels[0]).toMatchObject({
      outcome: 'synced',
      taken: 0,
      released: 0,
    });
    const recovered = await invoke(handlers.channels, { path: 'channel', headers: { authorization: staff } });
    expect(recovered.json.channels.airbnb).toMatchObject({ state: 'ok', last_error: '', failing_since: 0 });
  });

  it('an empty feed releases only once it has stayed empty for an hour', async () => {
    const now = Date.now();
    const at = (minutes: number): ChannelSyncDeps => ({ ...deps, clock: () => now + minutes * 60_000 });
    channels.serve(AIRBNB, { body: channelFeed([]) });
    expect((await syncNow(at(0), 'airbnb')).channels[0]).toMatchObject({
      outcome: 'waiting_empty',
      released: 0,
    });
    expect((await syncNow(at(30), 'airbnb')).channels[0]).toMatchObject({
      outcome: 'waiting_empty',
      released: 0,
    });
    expect(await blockedSlots(db, 'airbnb')).toHaveLength(4);
    // The feed comes back with its events: the clock starts again.
    channels.serve(AIRBNB, {
      body: channelFeed([
        [d(10), d(13)],
        [d(20), d(21)],
      ]),
    });
    await syncNow(at(40), 'airbnb');
    channels.serve(AIRBNB, { body: channelFeed([]) });
    expect((await syncNow(at(50), 'airbnb')).channels[0]).toMatchObject({ outcome: 'waiting_empty' });
    expect((await syncNow(at(100), 'airbnb')).channels[0]).toMatchObject({ outcome: 'waiting_empty' });
    // Still the same empty feed (a 304), now seen empty for over an hour: released.
    expect((await syncNow(at(111), 'airbnb')).channels[0]).toMatchObject({
      outcome: 'unchanged',
      released: 4,
    });
    expect(await blockedSlots(db, 'airbnb')).toEqual([]);
    expect(await readUsed(db, 1, d(10))).toBe(0);
  });
});

describe('feeds the fetcher refuses', () => {
  /** Syncs an ad-hoc channel of item 2 through the real fetcher, after blocking a date for it. */
  const refusedSync = async (id: string, url: string, policy: 'deployed' | 'local') => {
    const config = await getConfig(db);
    if (!config) throw new Error('no config');
    const channel = { id, item_id: 2, url, name: id, units: 1, enabled: true };
    const items = await listItems(db);
    const real = { db, fetchFeed, policy };
    // First a feed that lists a date, through the fake channels, so there is something to keep.
    channels.serve(`${url}#first`, { body: channelFeed([[d(400), d(401)]]) });
    await syncChannel({ ...deps }, { channel: { ...channel, url: `${url}#first` }, config, items });
    expect(await blockedSlots(db, id)).toEqual([d(400)]);
    return syncChannel(real, { channel, config, items });
  };

  it('a feed on a private address is refused before any connection, and releases nothing', async () => {
    const result = await refusedSync('private', 'https://10.1.2.3/calendar.ics', 'deployed');
    expect(result).toMatchObject({ outcome: 'failed', error: 'host resolves to a private address' });
    expect(await blockedSlots(db, 'private')).toEqual([d(400)]);
  });

  it('a feed over the 2 MB cap fails, and releases nothing', async () => {
    const huge = `${channelFeed([[d(400), d(401)]]).replace('END:VCALENDAR', `X-PAD:${'x'.repeat(70)}\r\n`.repeat(32_000))}END:VCALENDAR\r\n`;
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/calendar' });
      response.end(huge);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await refusedSync('huge', `http://127.0.0.1:${port}/feed.ics`, 'local');
      expect(result).toMatchObject({ outcome: 'failed', error: 'over 2 MB' });
      expect(await blockedSlots(db, 'huge')).toEqual([d(400)]);
    } finally {
      server.close();
    }
  });
});

describe('conflicts are never silent', () => {
  it('a date already sold here is recorded once with its booking, then taken when it frees up', async () => {
    const booking = await bookNights(handlers, 1, d(40), d(42));
    channels.serve(AIRBNB, { body: channelFeed([[d(41), d(43)]]) });
    const [first] = (await syncNow(deps, 'airbnb')).channels;
    expect(first).toMatchObject({ taken: 1, conflicts_opened: 1, conflicts: 1 });
    expect(await readUsed(db, 1, d(41))).toBe(1);
    const [again] = (await syncNow(deps, 'airbnb')).channels;
    expect(again).toMatchObject({ conflicts_opened: 0, conflicts: 1 });

    const listed = await invoke(handlers.channels, { path: 'channel', headers: { authorization: staff } });
    expect(listed.json.channels.airbnb.conflicts).toEqual([
      expect.objectContaining({ slot: d(41), units: 1, bookings: [booking.id] }),
    ]);
    const events = await listChannelEvents(db, { channelId: 'airbnb', limit: 50 });
    const conflicts = events.filter((event) => event.type === 'channel.conflict');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]?.data).toMatchObject({ item_id: 1, slot: d(41), bookings: [booking.id] });
    const deliveries = await invoke(handlers.admin, {
      path: 'webhook/ops/delivery',
      headers: { authorization: staff },
    });
    expect(
      deliveries.json.deliveries.filter(
        (entry: { event_type: string }) => entry.event_type === 'channel.conflict',
      ),
    ).toHaveLength(1);

    const voided = await invoke(handlers.bookings, {
      method: 'POST',
      path: `booking/${booking.id}/update`,
      body: formBody({ status_id: 'VOID' }),
      contentType: 'application/x-www-form-urlencoded',
      headers: { authorization: staff },
    });
    expect(voided.status).toBe(200);
    const [freed] = (await syncNow(deps, 'airbnb')).channels;
    expect(freed).toMatchObject({ taken: 1, conflicts_closed: 1, conflicts: 0 });
    expect(await readUsed(db, 1, d(41))).toBe(1);
  });

  it('a block and a guest racing for the last unit: exactly one wins, every time, and either can', async () => {
    const client = sessionClient(handlers);
    // Rounds 0 and 1 give one side a head start (the guest, then the block), so each is seen to win; the rest
    // race. Whoever wins, the other loses cleanly: a 409 for the guest, a conflict for the channel.
    const wins = { guest: 0, block: 0 };
    for (let round = 0; round < 8; round += 1) {
      const night = d(100 + round);
      const slip = await client.slip(1, `start_date=${night}&end_date=${d(101 + round)}&param[qty]=1`);
      channels.serve(AIRBNB, { body: channelFeed([[night, d(101 + round)]]) });
      const [guest, sync] =
        round === 0
          ? [await client.add([slip]), await syncNow(deps, 'airbnb')]
          : round === 1
            ? await syncNow(deps, 'airbnb').then(
                async (synced) => [await client.add([slip]), synced] as const,
              )
            : await Promise.all([client.add([slip]), syncNow(deps, 'airbnb')]);
      const guestWon = guest.status === 200;
      const blockWon = (await blockedSlots(db, 'airbnb')).includes(night);
      expect(guestWon !== blockWon, `round ${round}: guest ${guest.status}, block ${blockWon}`).toBe(true);
      expect(await readUsed(db, 1, night)).toBe(1);
      if (guestWon) expect(sync.channels[0]?.conflicts_opened).toBe(1);
      else expect(guest.status).toBe(409);
      wins[guestWon ? 'guest' : 'block'] += 1;
      if (guestWon) await client.end(sessionOf(guest).id as string);
    }
    expect(wins.guest).toBeGreaterThanOrEqual(1);
    expect(wins.block).toBeGreaterThanOrEqual(1);
  });
});

describe('operating it', () => {
  it('a channel removed from the tenant file has its blocks released by the next round', async () => {
    channels.serve(BOOKING, { body: channelFeed([[d(200), d(202)]], 'booking.com') });
    await syncNow(deps, 'booking');
    expect(await readUsed(db, 2, d(200))).toBe(1);
    const config = await getConfig(db);
    if (!config) throw new Error('no config');
    const round = await syncChannels(deps, {
      config: { ...config, channels: config.channels.filter((channel) => channel.id !== 'booking') },
      items: await listItems(db),
    });
    // With the ad-hoc channels of the refused feeds above, which are not in the file either.
    expect(round.retired.sort()).toEqual(['booking', 'huge', 'private']);
    expect(await readUsed(db, 2, d(200))).toBe(0);
    expect(await blockedSlots(db, 'booking')).toEqual([]);
  });

  it('reconcile counts blocks, and --fix puts a lost block back on its counter', async () => {
    channels.serve(AIRBNB, { body: channelFeed([[d(260), d(262)]]) });
    await syncNow(deps, 'airbnb');
    expect(await readUsed(db, 1, d(260))).toBe(1);
    await setUsed(db, 1, d(260), 0);
    const found = await runReconcile(db, { fix: true, now: Date.now() });
    expect(found.discrepancies).toEqual([
      expect.objectContaining({ itemId: 1, slot: d(260), used: 0, expected: 1, kind: 'corrupt' }),
    ]);
    expect(found.fixed).toBe(1);
    expect(await readUsed(db, 1, d(260))).toBe(1);
  });

  it('one channel whose sync throws does not stop the round for the others', async () => {
    channels.serve(AIRBNB, { body: channelFeed([[d(250), d(251)]]) });
    const broken: ChannelSyncDeps = {
      ...deps,
      fetchFeed: (request) =>
        request.url === BOOKING ? Promise.reject(new Error('socket hang up')) : channels.fetchFeed(request),
    };
    const round = await syncNow(broken);
    expect(round.channels.find((result) => result.channel_id === 'booking')).toMatchObject({
      outcome: 'failed',
      error: 'sync error: Error',
    });
    expect(round.channels.find((result) => result.channel_id === 'airbnb')).toMatchObject({
      outcome: 'synced',
    });
    expect(await readUsed(db, 1, d(250))).toBe(1);
  });

  it('POST channel/{id}/sync syncs now; an unknown channel is a 404; customers get 401', async () => {
    channels.serve(AIRBNB, { body: channelFeed([[d(300), d(301)]]) });
    const withFeeds = createAllHandlers({ ...testDeps(db), fetchFeed: channels.fetchFeed });
    const synced = await invoke(withFeeds.channels, {
      method: 'POST',
      path: 'channel/airbnb/sync',
      headers: { authorization: staff },
    });
    expect(synced.status).toBe(200);
    expect(synced.json.sync).toMatchObject({ outcome: 'synced' });
    expect(synced.json.channel).toMatchObject({ id: 'airbnb', state: 'ok' });
    const unknown = await invoke(withFeeds.channels, {
      method: 'POST',
      path: 'channel/nope/sync',
      headers: { authorization: staff },
    });
    expect(unknown.status).toBe(404);
    const customer = await invoke(withFeeds.channels, { method: 'POST', path: 'channel/airbnb/sync' });
    expect(customer.status).toBe(401);
  });
});
