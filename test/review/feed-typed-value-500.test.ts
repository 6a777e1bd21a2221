import { describe, expect, it } from 'vitest';
import { dayAhead, nextDay, setUpChannelWorld, waitFor } from './channel-review-world.ts';

// Review of issue 41, item 1 ("sync-now never answers 500"; "a feed over it fails like an unreadable one").
// Found: a property given a VALUE type its text is not (`UID;VALUE=DATE-TIME:garbage`, or a VTIMEZONE's
// `TZID;VALUE=DATE-TIME:…`) makes ical.js throw a plain Error when the read asks for the value (the UID
// is read outside the per-event try in lib/channels/ical-import.ts, the TZID in the zone walk). It is not a
// FeedParseError, so POST channel/{id}/sync answers 500 `internal`, and a round only logs "sync error":
// the channel is never marked failing, no `channel.failed` is emitted, no alarm can fire, and GET channel
// keeps saying `never_synced` (or `ok`, with the blocks of its last good read) for as long as the feed
// stays so. A 180-byte feed does it.
const world = await setUpChannelWorld('review-typed-value', {
  channels: [
    { id: 'typeduid', item_id: 1 },
    { id: 'typedzone', item_id: 3 },
  ],
});

const calendar = (before: string[], event: string[]): string =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Review//EN',
    ...before,
    'BEGIN:VEVENT',
    ...event,
    `DTSTART;VALUE=DATE:${dayAhead(30)}`,
    `DTEND;VALUE=DATE:${nextDay(dayAhead(30))}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

const channelState = async (id: string) => (await world.staff('channel')).json.channels[id];

describe('review 41: a feed with a value of the wrong type', () => {
  it('is a failed read through sync-now (no 500), the channel marked failing', async () => {
    world.feeds.feeds.typeduid = { body: calendar([], ['UID;VALUE=DATE-TIME:garbage']) };
    const sync = await world.staff('channel/typeduid/sync', 'POST');
    expect(sync.json.request.error?.id).not.toBe('internal');
    expect(sync.status).toBeLessThan(500);
    const state = await channelState('typeduid');
    expect(state.state).toBe('failing');
    expect(state.last_error).toMatch(/^unreadable feed/);
  });

  it('is a failed read in a round too: the channel failing, channel.failed sent once', async () => {
    world.feeds.feeds.typedzone = {
      body: calendar(
        ['BEGIN:VTIMEZONE', 'TZID;VALUE=DATE-TIME:garbage', 'END:VTIMEZONE'],
        ['UID:zone@review', 'SUMMARY:Reserved'],
      ),
    };
    await world.round('--channel', 'typedzone');
    const state = await channelState('typedzone');
    expect(state.state).toBe('failing');
    expect(state.last_error).toMatch(/^unreadable feed/);
    await waitFor('channel.failed for typedzone', () =>
      world.receiver.arrivals.some(
        (arrival) => arrival.type === 'channel.failed' && arrival.body.includes('"typedzone"'),
      ),
    );
  }, 60_000);
});
