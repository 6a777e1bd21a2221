import { describe, expect, it } from 'vitest';
import { dayAhead, feedOfDates, setUpChannelWorld } from './channel-review-world.ts';

// Review of issue 41 (records that stay right under overlapping syncs; docs/channels.md: "Channel syncs of
// the same channel may overlap (the schedule and a sync-now)"). Found: the blocks stay right (each date is
// taken once), but each run saves the channel's state with `blocked` worked out from its own view (the
// blocks it read plus what it took itself), last writer wins: after five overlapping sync-nows of a feed of
// 200 dates, 200 blocks were held while GET channel said `dates_blocked: 48` (another run: 0), until the
// next sync. The sync-now answers said 200, 144, 120, 120 and 48 (another run: 200, 0, 0, 0, 0).
const world = await setUpChannelWorld('review-concurrent-sync', { channels: [{ id: 'busy', item_id: 3 }] });

describe('review 41: overlapping syncs of one channel', () => {
  it('leave GET channel counting the blocks the channel holds', async () => {
    for (const offset of [100, 400]) {
      const dates = Array.from({ length: 200 }, (_, index) => dayAhead(offset + index));
      world.feeds.feeds.busy = { body: feedOfDates(dates) };
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => world.staff('channel/busy/sync', 'POST')),
      );
      for (const answer of answers) expect(answer.status).toBe(200);
      const channel = (await world.staff('channel')).json.channels.busy;
      expect(channel.dates_listed).toBe(200);
      expect(channel.dates_blocked).toBe(200);
    }
  }, 120_000);
});
