import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { FeedParseError } from '#lib/channels/feed-error.ts';
import { readFeed } from '#lib/channels/feed-parse.ts';
import { ReadBudget } from '#lib/channels/read-budget.ts';
import { CHANNEL_HORIZON_DAYS, slotsTaken } from '#lib/channels/slots.ts';
import type { TenantItem } from '#lib/config/index.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import {
  largestFeed,
  repeatedFeed,
  slowStepsFeed,
  spinningFeed,
  strayQuoteFeed,
} from '#test/support/hostile-feeds.ts';
import { makeTenantItem } from '#test/support/rating.ts';

// Issue 41, item 1: what the worst feeds an adversary can serve cost to read, as channel sync reads them
// (lib/channels/feed-read.ts): parse, recurrence walk and slot expansion under one ReadBudget.

/** One hostile feed read for one item. */
export interface HostileRead {
  feed: string;
  bytes: number;
  item: string;
  /** The slots it takes, or why it was refused. */
  outcome: string;
  /** Wall-clock time of the read. */
  seconds: number;
  /** CPU time the budget counted (5 s at most). */
  cpuSeconds: number;
  /** The longest the read held the thread at once (the longest of the reads run together). */
  longestMs: number;
  /** The event loop's worst delay meanwhile: what a request beside the reads waited at most. */
  loopDelayMaxMs: number;
  /** Reads of the feed run at once (a round's channels); the worst read is one read alone. */
  together: number;
}

const ZONE = 'America/Toronto';

/** Reads `text` `together` times at once for `item`, as the reads of one round run. */
async function readTogether(options: {
  feed: string;
  text: string;
  item: [string, TenantItem];
  together: number;
  today: string;
  last: string;
}): Promise<HostileRead> {
  const { text, today, last } = options;
  const [name, item] = options.item;
  const budgets = Array.from({ length: options.together }, () => new ReadBudget());
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const outcomes = await Promise.all(
    budgets.map(async (budget) => {
      try {
        const read = await readFeed(text, { timeZone: ZONE, from: today, to: last, budget });
        const slots = await slotsTaken(read.taken, { item, timeZone: ZONE, first: today, last, budget });
        return `${slots.length} slots`;
      } catch (error) {
        if (!(error instanceof FeedParseError)) throw error;
        return `refused: ${error.reason}`;
      }
    }),
  );
  const seconds = performance.now() - started;
  delay.disable();
  const distinct = [...new Set(outcomes)];
  return {
    feed: options.feed,
    bytes: text.length,
    item: name,
    outcome: distinct.length === 1 ? (distinct[0] as string) : distinct.join('; '),
    seconds: Math.round(seconds / 10) / 100,
    cpuSeconds: Math.round(budgets.reduce((sum, budget) => sum + budget.spentMs, 0) / 10) / 100,
    longestMs: Math.round(Math.max(...budgets.map((budget) => budget.longestMs))),
    loopDelayMaxMs: Math.round(delay.max / 1e6),
    together: options.together,
  };
}

/**
 * Reads each hostile feed for a nightly item and for an hourly one (08:00 to 20:00, twelve hours a day),
 * then eight feeds of slow steps at once for the nightly item, as a round reads its channels.
 */
export async function measureHostileReads(): Promise<HostileRead[]> {
  const today = todayIn(ZONE, Date.now());
  const last = addDays(today, CHANNEL_HORIZON_DAYS);
  const items: [string, TenantItem][] = [
    ['nightly', makeTenantItem({ unit: 'N', stock: 1 })],
    ['hourly', makeTenantItem({ unit: 'H', stock: 1, hours: { open: '08:00', close: '20:00' } })],
  ];
  const feeds: [string, string][] = [
    ['the issue’s: 1975-2035 daily, COUNT=600', repeatedFeed(600)],
    ['1975-2035 daily, COUNT=19999', repeatedFeed(19_999)],
    ['8 events of COUNT=19999', repeatedFeed(19_999, 8)],
    ['a rule no date satisfies', spinningFeed()],
    ['2 MB of one-day events', largestFeed(today)],
    ['a stray quote, then 480,000 parameters', strayQuoteFeed()],
    ['40 events of 100-200 ms steps', slowStepsFeed(today)],
  ];
  const rows: HostileRead[] = [];
  for (const [feed, text] of feeds)
    for (const item of items) rows.push(await readTogether({ feed, text, item, together: 1, today, last }));
  rows.push(
    await readTogether({
      feed: '8 feeds of 100-200 ms steps at once',
      text: slowStepsFeed(today),
      item: items[0] as [string, TenantItem],
      together: 8,
      today,
      last,
    }),
  );
  return rows;
}

/** The reads as a markdown table, the worst read's time last. */
export function hostileTable(rows: HostileRead[]): string[] {
  const worst = rows
    .filter((row) => row.together === 1)
    .reduce<HostileRead | undefined>(
      (slowest, row) => (slowest && slowest.seconds >= row.seconds ? slowest : row),
      undefined,
    );
  return [
    '| hostile feed | bytes | item | outcome | seconds | CPU s | longest hold ms | loop delay max ms |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.feed} | ${row.bytes} | ${row.item} | ${row.outcome} | ${row.seconds} | ${row.cpuSeconds} | ${row.longestMs} | ${row.loopDelayMaxMs} |`,
    ),
    ...(worst ? [`| **worst read** | | | ${worst.feed}, ${worst.item} | **${worst.seconds}** | | | |`] : []),
  ];
}
