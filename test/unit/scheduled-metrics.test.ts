import { describe, expect, it } from 'vitest';
import { type ChannelRound, meterRound } from '#functions/channels/round-job.ts';
import { meterSweep, type SweepReport } from '#functions/sweeper/job.ts';
import { createDispatchInvocation } from '#functions/webhooks/job.ts';
import type { ChannelSyncResult } from '#lib/channels/sync.ts';
import { METRIC } from '#lib/kernel/metric-names.ts';
import { type Meter, meterOf } from '#lib/runtime/metrics.ts';
import { DISPATCH_BATCH, type DispatchReport } from '#lib/webhooks/dispatch.ts';

// Issue 34, item 7: what the scheduled runs report to CloudWatch. A custom metric is billed for every hour it
// receives a value, so a run with nothing to say emits nothing; a run that did something says what.

/** A meter that records what it was given, as [name, value]. */
const recording = () => {
  const recorded: Array<[string, number]> = [];
  const meter: Meter = {
    count: (name, value = 1) => void recorded.push([name, value]),
    milliseconds: (name, value) => void recorded.push([name, value]),
    seconds: (name, value) => void recorded.push([name, value]),
  };
  return { meter, recorded };
};

const sweep = (overrides: Partial<SweepReport> = {}): SweepReport => ({
  minutes: 3,
  found: 0,
  released: 0,
  failed: 0,
  complete: true,
  oldestFoundSeconds: 0,
  lagSeconds: 0,
  voidedUnpaid: 0,
  lapsedPayments: 0,
  capturedPayments: 0,
  captureLeft: 0,
  ...overrides,
});

const channel = (overrides: Partial<ChannelSyncResult> = {}): ChannelSyncResult => ({
  channel_id: 'airbnb',
  outcome: 'unchanged',
  listed: 4,
  taken: 0,
  released: 0,
  pending: 0,
  conflicts_opened: 0,
  conflicts_reopened: 0,
  conflicts_closed: 0,
  blocked: 4,
  conflicts: 0,
  duration_ms: 80,
  ...overrides,
});

const round = (channels: ChannelSyncResult[], failingOverAnHour: string[] = []): ChannelRound => ({
  channels,
  retired: [],
  duration_ms: 90,
  failingOverAnHour,
});

const dispatched = (overrides: Partial<DispatchReport> = {}): DispatchReport => ({
  due: 0,
  delivered: 0,
  failed: 0,
  skipped: 0,
  deferred: 0,
  disabled: 0,
  ...overrides,
});

describe('the meter over Powertools Metrics', () => {
  it('adds no metric for a count of zero, and every other count, duration and age', () => {
    const added: Array<[string, string, number]> = [];
    const meter = meterOf({
      addMetric: (name: string, unit: string, value: number) => added.push([name, unit, value]),
    });
    meter.count(METRIC.busy, 0);
    meter.count(METRIC.busy);
    meter.count(METRIC.holdsMade, 3);
    meter.milliseconds(METRIC.bookingCreateLatency, 0);
    meter.seconds(METRIC.sweeperLagSeconds, 12);
    expect(added).toEqual([
      [METRIC.busy, 'Count', 1],
      [METRIC.holdsMade, 'Count', 3],
      [METRIC.bookingCreateLatency, 'Milliseconds', 0],
      [METRIC.sweeperLagSeconds, 'Seconds', 12],
    ]);
  });
});

describe("the sweeper's metrics", () => {
  it('emits nothing for a sweep that found nothing, or found only what was already released', () => {
    const { meter, recorded } = recording();
    meterSweep(meter, sweep());
    meterSweep(meter, sweep({ found: 2, released: 0 }));
    expect(recorded).toEqual([]);
  });

  it('counts the sessions a sweep released', () => {
    const { meter, recorded } = recording();
    meterSweep(meter, sweep({ found: 3, released: 3 }));
    expect(recorded).toEqual([[METRIC.sweeperReleases, 3]]);
  });

  it('reports its lag when it left expired holds behind', () => {
    const { meter, recorded } = recording();
    meterSweep(meter, sweep({ found: 40, released: 30, failed: 1, complete: false, lagSeconds: 420 }));
    expect(recorded).toEqual([
      [METRIC.sweeperReleases, 30],
      [METRIC.sweeperLagSeconds, 420],
    ]);
  });
});

describe("channel sync's metrics", () => {
  it('emits nothing for a round in which every feed was read and nothing conflicted', () => {
    const { meter, recorded } = recording();
    meterRound(meter, round([channel(), channel({ channel_id: 'vrbo', outcome: 'synced', taken: 2 })]));
    meterRound(meter, round([]));
    expect(recorded).toEqual([]);
  });

  it('counts conflicts opened, feeds that failed and channels failing for over an hour', () => {
    const { meter, recorded } = recording();
    meterRound(
      meter,
      round(
        [
          channel({ outcome: 'synced', conflicts_opened: 2 }),
          channel({ channel_id: 'vrbo', outcome: 'failed', error: 'timeout' }),
          channel({ channel_id: 'booking', outcome: 'failed', error: '404' }),
        ],
        ['vrbo'],
      ),
    );
    expect(recorded).toEqual([
      [METRIC.channelConflicts, 2],
      [METRIC.channelFetchFailures, 2],
      [METRIC.channelsFailing, 1],
    ]);
  });

  it('counts no conflict re-opened without being announced (a flapping feed), only new ones', () => {
    const { meter, recorded } = recording();
    meterRound(meter, round([channel({ outcome: 'synced', conflicts_opened: 3, conflicts_reopened: 2 })]));
    meterRound(meter, round([channel({ outcome: 'synced', conflicts_opened: 1, conflicts_reopened: 1 })]));
    expect(recorded).toEqual([[METRIC.channelConflicts, 1]]);
  });
});

describe("the dispatcher's invocation", () => {
  const invoke = async (reports: DispatchReport[]) => {
    const { meter, recorded } = recording();
    const pending = [...reports];
    let runs = 0;
    await createDispatchInvocation({
      dispatch: async () => {
        runs += 1;
        return pending.shift() ?? dispatched();
      },
      meter,
      budgetMs: 45_000,
      clock: () => 0,
    })();
    return { recorded, runs };
  };

  it('emits nothing when nothing was due', async () => {
    expect(await invoke([dispatched()])).toEqual({ recorded: [], runs: 1 });
  });

  it('reports what was due when it began, and what each run delivered, failed and disabled', async () => {
    const full = dispatched({ due: DISPATCH_BATCH, delivered: DISPATCH_BATCH - 1, failed: 1 });
    const rest = dispatched({ due: 7, delivered: 5, failed: 2, disabled: 1 });
    expect(await invoke([full, rest])).toEqual({
      runs: 2,
      recorded: [
        [METRIC.webhookPending, DISPATCH_BATCH],
        [METRIC.webhookSucceeded, DISPATCH_BATCH - 1],
        [METRIC.webhookFailed, 1],
        [METRIC.webhookSucceeded, 5],
        [METRIC.webhookFailed, 2],
        [METRIC.webhookEndpointsDisabled, 1],
      ],
    });
  });
});
