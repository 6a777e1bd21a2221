import type { ChannelSyncDeps } from '#lib/channels/index.ts';
import { type ChannelRoundReport, getChannelStates, syncChannels } from '#lib/channels/index.ts';
import { getConfig, listItems } from '#lib/config/index.ts';
import { METRIC } from '#lib/kernel/metric-names.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { logger } from '#lib/runtime/logger.ts';
import type { Meter } from '#lib/runtime/metrics.ts';

/** A channel whose feed has failed this long raises the stack's alarm. */
export const CHANNEL_FAILING_ALARM_MS = 3_600_000;

/** A round's report, with how many channels have been failing for over an hour. */
export type ChannelRound = ChannelRoundReport & { failingOverAnHour: string[] };

/**
 * What a round reports to CloudWatch, each count only when it is not zero: conflicts announced, feeds that
 * failed, and channels failing for over an hour (the stack alarms on the first and the last). A quiet round
 * emits no metric, since a custom metric is billed for every hour it receives a value; whether rounds run
 * at all is read from the function's AWS/Lambda Invocations, which AWS publishes for free.
 */
export function meterRound(meter: Meter, round: ChannelRound): void {
  // A conflict re-opened without being announced (a flapping feed) is no new double sale.
  const conflicts = round.channels.reduce(
    (sum, result) => sum + result.conflicts_opened - result.conflicts_reopened,
    0,
  );
  const failures = round.channels.filter((result) => result.outcome === 'failed').length;
  if (conflicts > 0) meter.count(METRIC.channelConflicts, conflicts);
  if (failures > 0) meter.count(METRIC.channelFetchFailures, failures);
  if (round.failingOverAnHour.length > 0) meter.count(METRIC.channelsFailing, round.failingOverAnHour.length);
}

/**
 * The scheduled channel sync (every 5 minutes in AWS, the runner's timer locally): one round over every
 * enabled channel of the tenant file, its metrics (a conflict count, failures, and the channels failing
 * for over an hour, which the stack alarms on) and one log line per channel that did something.
 */
export const createChannelSync =
  (options: Omit<ChannelSyncDeps, 'db'> & { db: Db; meter?: Meter; only?: string }) =>
  async (): Promise<ChannelRound | undefined> => {
    const clock = options.clock ?? Date.now;
    const config = await getConfig(options.db);
    if (!config || config.channels.length === 0) return undefined;
    const report = await syncChannels(options, {
      config,
      items: await listItems(options.db),
      ...(options.only ? { only: options.only } : {}),
    });
    const states = await getChannelStates(
      options.db,
      config.channels.filter((channel) => channel.enabled).map((channel) => channel.id),
    );
    const now = clock();
    const failingOverAnHour = [...states.values()]
      .filter(
        (state) => state.failing_since !== undefined && now - state.failing_since >= CHANNEL_FAILING_ALARM_MS,
      )
      .map((state) => state.channel_id);
    if (options.meter) meterRound(options.meter, { ...report, failingOverAnHour });
    for (const result of report.channels) {
      if (result.outcome === 'failed') logger.warn('channel sync failed', { ...result });
      else if (result.taken || result.released || result.conflicts_opened || result.conflicts_closed)
        logger.info('channel sync', { ...result });
    }
    if (report.retired.length) logger.info('channels retired', { channels: report.retired });
    return { ...report, failingOverAnHour };
  };
