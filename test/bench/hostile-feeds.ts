import { performance } from 'node:perf_hooks';
import { FeedParseError } from '#lib/channels/feed-error.ts';
import { readFeed } from '#lib/channels/feed-parse.ts';
import { ReadBudget } from '#lib/channels/read-budget.ts';
import { CHANNEL_HORIZON_DAYS, slotsTaken } from '#lib/channels/slots.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { largestFeed, repeatedFeed, spinningFeed } from '#test/support/hostile-feeds.ts';
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
  /** The longest the read held the thread at once: what a request beside it could have waited. */
  longestMs: number;
}

const ZONE = 'America/Toronto';

/** Reads each hostile feed for a nightly item and for an hourly one (08:00 to 20:00, twelve hours a day). */
export async function measureHostileReads(): Promise<HostileRead[]> {
  const today = todayIn(ZONE, Date.now());
  const last = addDays(today, CHANNEL_HORIZON_DAYS);
  const items = {
    nightly: makeTenantItem({ unit: 'N', stock: 1 }),
    hourly: makeTenantItem({ unit: 'H', stock: 1, hours: { open: '08:00', close: '20:00' } }),
  };
  const feeds: [string, string][] = [
    ['the issue’s: 1975-2035 daily, COUNT=600', repeatedFeed(600)],
    ['1975-2035 daily, COUNT=19999', repeatedFeed(19_999)],
    ['8 events of COUNT=19999', repeatedFeed(19_999, 8)],
    ['a rule no date satisfies', spinningFeed()],
    ['2 MB of one-day events', largestFeed(today)],
  ];
  const rows: HostileRead[] = [];
  for (const [feed, text] of feeds)
    for (const [name, item] of Object.entries(items)) {
      const budget = new ReadBudget();
      const started = performance.now();
      let outcome: string;
      try {
        const read = await readFeed(text, { timeZone: ZONE, from: today, to: last, budget });
        const slots = await slotsTaken(read.taken, { item, timeZone: ZONE, first: today, last, budget });
        outcome = `${slots.length} slots`;
      } catch (error) {
        if (!(error instanceof FeedParseError)) throw error;
        outcome = `refused: ${error.reason}`;
      }
      rows.push({
        feed,
        bytes: text.length,
        item: name,
        outcome,
        seconds: Math.round((performance.now() - started) / 10) / 100,
        cpuSeconds: Math.round(budget.spentMs / 10) / 100,
        longestMs: Math.round(budget.longestMs),
      });
    }
  return rows;
}

/** The reads as a markdown table, the worst read's time last. */
export function hostileTable(rows: HostileRead[]): string[] {
  const worst = rows.reduce<HostileRead | undefined>(
    (slowest, row) => (slowest && slowest.seconds >= row.seconds ? slowest : row),
    undefined,
  );
  return [
    '| hostile feed | bytes | item | outcome | seconds | CPU s | longest hold ms |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.feed} | ${row.bytes} | ${row.item} | ${row.outcome} | ${row.seconds} | ${row.cpuSeconds} | ${row.longestMs} |`,
    ),
    ...(worst ? [`| **worst read** | | | ${worst.feed}, ${worst.item} | **${worst.seconds}** | | |`] : []),
  ];
}
