import { createHash } from 'node:crypto';
import type { FeedRequest, FeedResponse } from '#lib/channels/fetch-feed.ts';
import { getConfig, listItems } from '#lib/db/tenant-repository.ts';
import { type ChannelSyncDeps, syncChannel, syncChannels } from '#lib/domain/channel-sync.ts';

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
