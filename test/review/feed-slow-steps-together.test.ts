import { describe, expect, it } from 'vitest';
import { setUpChannelWorld } from './channel-review-world.ts';

// Review of issue 41, item 1 ("many channels at once"; "GET ping ... must answer within 1 s"). Found: the
// read holds the thread one step at a time (250 ms at most), but the channels of a round read together, and
// their turns (setImmediate) all run in one pass of the event loop: eight feeds whose every step costs
// ical.js 100-200 ms (a SECONDLY rule that matches once in two months, which the walk steps occurrence
// by occurrence) hold the thread some 8 × 150 ms at a time, again and again for their 5 s budgets. Under
// `npm start`, while the timer's round read them, GET ping waited up to 2.5 s (eight sync-nows at once:
// the same, and each answered 503). The bound per read is kept; the bound per turn of the loop is not.
// (Fix: the pings are measured until every channel has failed, not for 25 s only: eight reads that share
// the thread fairly spend their budgets of CPU time in eight times one budget at best, which the issue does
// not bound. The runner reads them under a budget of 1 s, CHANNEL_READ_BUDGET_MS, rather than 5 s: the
// turns the reads take are what is tested, not how long each may take.)
const CHANNELS = Array.from({ length: 8 }, (_, index) => ({ id: `slow${index}`, item_id: 3 }));

/** Events whose every occurrence costs ical.js 100-200 ms to find. */
const slowStepsFeed = (): string =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Review//EN',
    ...Array.from({ length: 40 }, (_, index) => [
      'BEGIN:VEVENT',
      `UID:slow-${index}@review`,
      'DTSTART:20261201T000000Z',
      'DTEND:20261201T000100Z',
      'RRULE:FREQ=SECONDLY;BYMONTH=1,3,5,7,9,11;BYMONTHDAY=1;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'END:VEVENT',
    ]).flat(),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

// The runner's own rounds (every 2 s, one at a time) read the eight feeds from its start.
const world = await setUpChannelWorld('review-slow-steps', {
  channels: CHANNELS,
  env: { CHANNEL_SYNC_INTERVAL_MS: '2000', CHANNEL_READ_BUDGET_MS: '1000' },
});
for (const { id } of CHANNELS) world.feeds.feeds[id] = { body: slowStepsFeed() };

describe('review 41: eight channels of a round whose feeds each step slowly', () => {
  it('never hold GET ping past 1 s while the round reads them', async () => {
    const pings: number[] = [];
    // The round's reads are measured until they have failed (a read's budget is CPU time, and eight
    // reads share the thread with each other and with the pings: how long that takes is the machine's).
    const failing = async () =>
      Object.values((await world.staff('channel')).json.channels).filter(
        (channel: any) => channel.state === 'failing',
      ).length;
    const from = Date.now();
    let failed = 0;
    while (failed < CHANNELS.length && Date.now() - from < 150_000) {
      const started = performance.now();
      await world.api('ping');
      pings.push(performance.now() - started);
      if (pings.length % 20 === 0) failed = await failing();
      await new Promise((wake) => setTimeout(wake, 50));
    }
    // The round did read them meanwhile: each channel has been tried and failed over its budget.
    expect(await failing()).toBe(CHANNELS.length);
    for (const channel of Object.values((await world.staff('channel')).json.channels) as any[])
      expect(channel.last_error).toMatch(
        /the feed takes too long to read \((over 1 s of work|a step of over)/,
      );
    expect(Math.max(...pings)).toBeLessThan(1_000);
  }, 200_000);
});
