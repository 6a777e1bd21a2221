import { beforeAll, describe, expect, it } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { channelFeed, fakeChannels } from '#test/support/channel-world.ts';
import { testDeps } from '#test/support/deps.ts';
import { invoke, staffBasic } from '#test/support/events.ts';
import { makeItem, makeTenantJson } from '#test/support/tenant.ts';
import { loadTenant } from '#test/support/tenant-table.ts';

// Issue 41, item 4: feed addresses are secrets. GET channel stripped only the query string, but calendar
// addresses such as Google's carry their secret in the path (`/private-<secret>/basic.ics`), and Vrbo's
// in the file name. Staff see the host and a masked path, wherever a channel is shown.

const SECRET = '9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const GOOGLE = `https://calendar.google.com/calendar/ical/lodge%40example.com/private-${SECRET}/basic.ics`;
const VRBO = `https://www.vrbo.com/icalendar/${SECRET}.ics?nonTentative`;
const AIRBNB = `https://user:${SECRET}@www.airbnb.com:8443/calendar/ical/123.ics?s=${SECRET}#${SECRET}`;

let db: Db;
let staff: string;
let handlers: ReturnType<typeof createAllHandlers>;
const channels = fakeChannels();

beforeAll(async () => {
  ({ db } = await loadTenant(
    'chaddr',
    makeTenantJson({
      items: [makeItem({ item_id: 1, sku: 'cabin', name: 'Cabin', unit: 'N', stock: 3 })],
      channels: [
        { id: 'google', item_id: 1, url: GOOGLE, name: 'Google' },
        { id: 'vrbo', item_id: 1, url: VRBO, name: 'Vrbo' },
        { id: 'airbnb', item_id: 1, url: AIRBNB, name: 'Airbnb' },
      ],
    }),
  ));
  staff = await staffBasic(db);
  handlers = createAllHandlers({ ...testDeps(db), fetchFeed: channels.fetchFeed });
  for (const url of [GOOGLE, VRBO, AIRBNB]) channels.serve(url, { body: channelFeed([]) });
});

describe('a feed address as staff see it', () => {
  it('GET channel shows the host and a masked path, never the secret', async () => {
    const listed = await invoke(handlers.channels, { path: 'channel', headers: { authorization: staff } });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(SECRET);
    expect(listed.text).not.toContain('lodge');
    expect(listed.json.channels.google.url).toBe('https://calendar.google.com/***/***/***/***/***.ics');
    expect(listed.json.channels.vrbo.url).toBe('https://www.vrbo.com/***/***.ics');
    expect(listed.json.channels.airbnb.url).toBe('https://www.airbnb.com:8443/***/***/***.ics');
  });

  it('the answer of a sync-now shows it masked too', async () => {
    const synced = await invoke(handlers.channels, {
      method: 'POST',
      path: 'channel/google/sync',
      headers: { authorization: staff },
    });
    expect(synced.status).toBe(200);
    expect(synced.text).not.toContain(SECRET);
    expect(synced.json.channel.url).toBe('https://calendar.google.com/***/***/***/***/***.ics');
  });
});
