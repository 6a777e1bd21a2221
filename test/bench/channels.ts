import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { countDbUsage, type DbUsage, emptyDbUsage } from '#infra/local/db-usage.ts';
import { fetchFeed } from '#lib/channels/feed-fetch.ts';
import { syncChannels } from '#lib/channels/round.ts';
import { getConfig, listItems } from '#lib/config/repository.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn, type Ymd } from '#lib/kernel/dates.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import { channelFeed } from '#test/support/channel-world.ts';
import { repeatedFeed } from '#test/support/hostile-feeds.ts';
import { hostileTable, measureHostileReads } from './hostile-feeds.ts';
import { writeResults } from './report.ts';
import { benchTenant } from './tenant.ts';

// One round of channel sync at the scale issue 30 names: 50 channels, each a feed listing 365 days of one
// item (weekly stays, back to back), fetched over HTTP from a local server, read, and applied. Four rounds:
// the first (every date taken), one with every feed unchanged (304s), one with every window moved on a day,
// and (issue 41) one more day's move with one channel's feed hostile: over the read's budget.

/** What one round took: its time, its DynamoDB calls by operation, and what it changed. */
export interface ChannelRound {
  round: string;
  seconds: number;
  calls: Record<string, number>;
  totalCalls: number;
  taken: number;
  released: number;
  failed: number;
  /** The slowest channel's sync, the hostile one's apart. */
  slowestSeconds: number;
  hostileSeconds?: number;
  /** The longest the round's thread was held at once (its event loop's worst delay): what any request waited. */
  loopDelayMaxMs: number;
}

export const CHANNELS = 50;
export const FEED_DAYS = 365;

/** A feed of back-to-back weekly stays from `first` over `days` days, as a channel full for a year shows. */
const yearFeed = (first: Ymd, days: number) =>
  channelFeed(
    Array.from({ length: Math.ceil(days / 7) }, (_, week) => {
      const start = addDays(first, week * 7);
      const end = addDays(first, Math.min(days, week * 7 + 7));
      return [start, end, 'Reserved'] as [string, string, string];
    }),
  );

export async function measureChannelRounds(endpoint: string): Promise<ChannelRound[]> {
  const today = todayIn('America/Toronto', Date.now());
  let shift = 0;
  /** The channel whose feed is hostile, by its index. */
  let hostile: number | undefined;
  const server = createServer((request, response) => {
    const body =
      request.url === `/feed/${hostile}.ics`
        ? repeatedFeed(19_999, 8)
        : yearFeed(addDays(today, shift), FEED_DAYS);
    const etag = `"${shift}"`;
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304, { etag });
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8', etag });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    const tenant = benchTenant(CHANNELS, today);
    tenant.channels = Array.from({ length: CHANNELS }, (_, index) => ({
      id: `channel-${index + 1}`,
      item_id: index + 1,
      url: `http://127.0.0.1:${port}/feed/${index + 1}.ics`,
      name: `Channel ${index + 1}`,
      units: 1,
      enabled: true,
    }));
    const tableName = `bench-channels-${randomUUID().slice(0, 8)}`;
    await ensureTable(createDb({ endpoint, tableName }));
    await writeTenant(createDb({ endpoint, tableName }), tenant, Date.now());
    const rounds: ChannelRound[] = [];
    const round = async (name: string) => {
      const usage: DbUsage = emptyDbUsage();
      const db = createDb({ endpoint, tableName, instrument: countDbUsage(usage) });
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      const started = performance.now();
      const config = await getConfig(db);
      if (!config) throw new Error('no tenant');
      const report = await syncChannels(
        { db, fetchFeed, policy: 'local' },
        { config, items: await listItems(db) },
      );
      const seconds = (performance.now() - started) / 1000;
      loop.disable();
      const hostileId = hostile === undefined ? undefined : `channel-${hostile}`;
      const others = report.channels.filter((result) => result.channel_id !== hostileId);
      const hostileMs = report.channels.find((result) => result.channel_id === hostileId)?.duration_ms;
      rounds.push({
        round: name,
        seconds: Math.round(seconds * 100) / 100,
        calls: usage.calls,
        totalCalls: Object.values(usage.calls).reduce((sum, count) => sum + count, 0),
        taken: report.channels.reduce((sum, result) => sum + result.taken, 0),
        released: report.channels.reduce((sum, result) => sum + result.released, 0),
        failed: report.channels.filter((result) => result.outcome === 'failed').length,
        slowestSeconds: Math.max(...others.map((result) => result.duration_ms)) / 1000,
        ...(hostileMs === undefined ? {} : { hostileSeconds: hostileMs / 1000 }),
        loopDelayMaxMs: Math.round(loop.max / 1e6),
      });
    };
    await round(`first: ${CHANNELS} feeds × ${FEED_DAYS} days, every date taken`);
    await round('unchanged: every feed answers 304');
    shift = 1;
    await round('moved: every window a day later (one date released, one taken a feed)');
    shift = 2;
    hostile = 1;
    await round('hostile: one feed over the read budget, 49 windows a day later');
    const audit = await runReconcile(createDb({ endpoint, tableName }), { fix: false, now: Date.now() });
    if (audit.discrepancies.length)
      throw new Error(`channel rounds left ${audit.discrepancies.length} discrepancies`);
    return rounds;
  } finally {
    server.close();
  }
}

/** The rounds as a markdown table. */
export function channelTable(rounds: ChannelRound[]): string[] {
  return [
    '| channel sync round | seconds | DynamoDB calls | by operation | taken | released | failed | slowest channel s | hostile channel s | loop delay max ms |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rounds.map(
      (round) =>
        `| ${round.round} | ${round.seconds} | ${round.totalCalls} | ${Object.entries(round.calls)
          .map(([name, count]) => `${name} ${count}`)
          .join(
            ', ',
          )} | ${round.taken} | ${round.released} | ${round.failed} | ${round.slowestSeconds} | ${round.hostileSeconds ?? ''} | ${round.loopDelayMaxMs} |`,
    ),
  ];
}

/**
 * `npm run bench -- --channels`: the channel sync rounds and the hostile feeds' reads alone, printed and
 * written to bench-results.json.
 */
export async function benchChannelsOnly(endpoint: string, say: (line: string) => void): Promise<void> {
  say('measuring channel sync rounds');
  const channelRounds = await measureChannelRounds(endpoint);
  say('measuring hostile feed reads');
  const hostileReads = await measureHostileReads();
  const date = new Date().toISOString();
  say(`\nChannel sync ${date}`);
  for (const line of channelTable(channelRounds)) say(line);
  say('');
  for (const line of hostileTable(hostileReads)) say(line);
  writeResults('bench-results.json', {
    date,
    quick: false,
    seconds: 0,
    rows: [],
    bundles: [],
    channelRounds,
    hostileReads,
  });
  say('\nwrote bench-results.json');
}
