import { describe, expect, it } from 'vitest';
import { dayAhead, feedOfDates, setUpChannelWorld } from './channel-review-world.ts';

// Review of issue 41, item 3 ("a flapping feed announces ... once"; the title: no flapping
// calendar can blur its records). Found: conflicts are announced once, but a feed that flaps between a
// calendar and an error page (a channel's overloaded front end) is "a new run of failures" at each flap:
// four flaps sent four `channel.failed` webhooks and wrote eight audit records (`channel.failed` and
// `channel.recovered` each time), and `failing_since` starts again at every flap, so the
// `channel-failing` alarm (a channel still failing after an hour) never fires for a feed that fails every
// other read, however long it does. Low severity: the blocks are right after each good read.
const world = await setUpChannelWorld('review-failure-flaps', { channels: [{ id: 'flaky', item_id: 3 }] });

describe('review 41: a feed flapping between readable and unreadable', () => {
  it('announces its failure once while it keeps flapping', async () => {
    const good = feedOfDates([dayAhead(50), dayAhead(51)]);
    const outcomes: string[] = [];
    for (let flap = 0; flap < 4; flap += 1) {
      world.feeds.feeds.flaky = { body: good };
      outcomes.push((await world.staff('channel/flaky/sync', 'POST')).json.sync.outcome);
      world.feeds.feeds.flaky = { body: '<html><body>Service unavailable</body></html>' };
      outcomes.push((await world.staff('channel/flaky/sync', 'POST')).json.sync.outcome);
    }
    // Each good read succeeds and each error page fails: the feed really flaps.
    expect(outcomes.map((outcome) => outcome === 'failed')).toEqual([
      false,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
    ]);
    await new Promise((settle) => setTimeout(settle, 3_000));
    const failed = world.receiver.arrivals.filter(
      (arrival) => arrival.type === 'channel.failed' && arrival.attempt === 1,
    );
    expect(failed).toHaveLength(1);
  }, 60_000);
});
