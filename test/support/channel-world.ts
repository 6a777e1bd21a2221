import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import type { FeedRequest, FeedResponse } from '#lib/channels/feed-fetch.ts';
import { readChannel } from '#lib/channels/repository.ts';
import { syncChannels } from '#lib/channels/round.ts';
import { type ChannelSyncDeps, syncChannel } from '#lib/channels/sync.ts';
import { getConfig, listItems } from '#lib/config/repository.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { formBody, invoke } from './events.ts';
import { sessionClient, sessionOf } from './session.ts';

/**
 * An iCalendar feed as a channel publishes it (literal lines, CRLF, as Airbnb and Booking.com send them):
 * one all-day event per `[first, endExclusive, summary]`.
 */
export function channelFeed(
  events: [first: string, endExclusive: string, summary?: string][],
  domain = 'airbnb.com',
): string {
  return [
    'BEGIN:VCALENDAR',
    'PRODID:-//Airbnb Inc//Hosting Calendar 0.8.8//EN',
    'CALSCALE:GREGORIAN',
    'VERSION:2.0',
    ...events.flatMap(([first, end, summary]) => [
      'BEGIN:VEVENT',
      `DTEND;VALUE=DATE:${end}`,
      `DTSTART;VALUE=DATE:${first}`,
      `UID:${first}-${end}@${domain}`,
      `SUMMARY:${summary ?? 'Reserved'}`,
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** What the fake channel side answers for a URL: a feed's text, or a failure. */
type Served = { body: string } | { fail: string };

/**
 * Channels' feeds served from memory, with ETags and 304s as a real server would answer a conditional GET;
 * `requests` lists what each fetch sent.
 */
export function fakeChannels() {
  const served = new Map<string, Served>();
  const requests: FeedRequest[] = [];
  const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
  const fetchFeed = async (request: FeedRequest): Promise<FeedResponse> => {
    requests.push(request);
    const answer = served.get(request.url);
    if (!answer) return { outcome: 'failed', status: 404, error: 'HTTP 404', durationMs: 1 };
    if ('fail' in answer) return { outcome: 'failed', error: answer.fail, durationMs: 1 };
    const etag = etagOf(answer.body);
    if (request.etag === etag) return { outcome: 'unchanged', status: 304, durationMs: 1 };
    return { outcome: 'fetched', status: 200, body: answer.body, etag, durationMs: 1 };
  };
  return {
    serve: (url: string, answer: Served) => served.set(url, answer),
    requests,
    fetchFeed,
  };
}

/** Syncs one channel of the table's tenant file (or every channel) as the schedule would. */
export async function syncNow(deps: ChannelSyncDeps, channelId?: string) {
  const config = await getConfig(deps.db);
  if (!config) throw new Error('no tenant');
  const items = await listItems(deps.db);
  if (channelId === undefined) return syncChannels(deps, { config, items });
  const channel = config.channels.find((entry) => entry.id === channelId);
  if (!channel) throw new Error(`no channel ${channelId}`);
  return { channels: [await syncChannel(deps, { channel, config, items })], retired: [], duration_ms: 0 };
}

/** The slots a channel blocks now, sorted. */
export const blockedSlots = async (db: Db, channelId: string): Promise<string[]> =>
  [...(await readChannel(db, channelId)).blocks.keys()].sort();

type Handlers = ReturnType<typeof createAllHandlers>;

/** A guest's booking of an item's nights through the cart, as the widget makes it. */
export async function bookNights(handlers: Handlers, itemId: number, first: string, endExclusive: string) {
  const client = sessionClient(handlers);
  const slip = await client.slip(itemId, `start_date=${first}&end_date=${endExclusive}&param[qty]=1`);
  const sessionId = sessionOf(await client.add([slip])).id as string;
  const created = await invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({
      session_id: sessionId,
      'form[customer_name]': 'Ada',
      'form[customer_email]': 'ada@example.com',
    }),
    contentType: 'application/x-www-form-urlencoded',
  });
  expect(created.status, JSON.stringify(created.json.request)).toBe(200);
  return created.json.booking as { id: string; booking_id: number };
}

/** A staff booking of an item rated by `query`, made with the SLIP directly; answers its code. */
export async function staffBooks(
  handlers: Handlers,
  staff: string,
  options: { itemId: number; query: string; guest: string; email: string },
): Promise<string> {
  const rated = await invoke(handlers.items, {
    path: `item/${options.itemId}`,
    query: options.query,
    headers: { authorization: staff },
  });
  const created = await invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({
      'slip[]': [rated.json.item.rate.slip],
      'form[customer_name]': options.guest,
      'form[customer_email]': options.email,
    }),
    contentType: 'application/x-www-form-urlencoded',
    headers: { authorization: staff },
  });
  expect(created.status, JSON.stringify(created.json.request)).toBe(200);
  return created.json.booking.id as string;
}
