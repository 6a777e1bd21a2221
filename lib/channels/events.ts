import { randomUUID } from 'node:crypto';
import type { StoredConfig, TenantChannel } from '../config/index.ts';

import type { Db } from '../kernel/storage/database.ts';
import { ConditionsFailedError, type TransactItem, transact } from '../kernel/storage/transact.ts';
import { subscribersOf, webhookEventActions } from '../webhooks/index.ts';

import { type ChannelEvent, type ChannelHoldings, channelEventAction } from './repository.ts';
import { failingAction, recordFailure } from './state-repository.ts';

// A channel's events: its audit trail (kept the tenant's event retention) and, for subscribers, webhooks.

/** A new event of a channel. */
export const channelEvent = (
  channel: TenantChannel,
  type: string,
  at: number,
  data: Record<string, unknown>,
): ChannelEvent => ({ event_id: randomUUID(), type, at, channel_id: channel.id, data });

/** The audit entry of a channel event and, for the endpoints that subscribe to it, its webhook deliveries. */
export function eventActions(db: Db, config: StoredConfig, event: ChannelEvent): TransactItem[] {
  const retentionDays = config.settings.webhooks.retention_days;
  return [
    channelEventAction(db, event, { retentionDays }),
    ...webhookEventActions(db, {
      event: {
        event: {
          event_id: event.event_id,
          type: event.type,
          at: event.at,
          account_id: 0,
          data: { channel_id: event.channel_id, ...event.data },
        },
        booking_id: 0,
        sequence: 0,
      },
      endpointIds: subscribersOf(config, event.type),
      retentionDays,
    }),
  ];
}

/**
 * How long a failure is remembered after the feed reads again. A feed failing again within it (a channel
 * whose front end answers an error page every other poll) resumes its run of failures: `failing_since`
 * stays the run's start, so a feed that keeps flapping for an hour raises the failing alarm, and nothing
 * is announced again. Each failure starts the hour again.
 */
export const FAILURE_MEMORY_MS = 3_600_000;

/**
 * Records a failed read: nothing is released. The first failure of a run emits `channel.failed`; one
 * within FAILURE_MEMORY_MS of the last failure resumes that run quietly.
 */
export async function recordFailedRead(
  db: Db,
  options: {
    channel: TenantChannel;
    config: StoredConfig;
    holdings: ChannelHoldings;
    error: string;
    now: number;
  },
): Promise<void> {
  const { channel, now } = options;
  const state = options.holdings.state;
  if (state?.failing_since === undefined) {
    const resumed =
      state?.last_failed_at !== undefined && state.failure_run_since !== undefined
        ? now - state.last_failed_at < FAILURE_MEMORY_MS
        : false;
    const failing = { channelId: channel.id, itemId: channel.item_id };
    const event = channelEvent(channel, 'channel.failed', now, {
      item_id: channel.item_id,
      reason: options.error,
    });
    try {
      await transact(
        db,
        resumed
          ? [failingAction(db, { ...failing, since: state?.failure_run_since ?? now, quietly: true })]
          : [
              failingAction(db, { ...failing, since: now, quietly: false }),
              ...eventActions(db, options.config, event),
            ],
      );
    } catch (error) {
      // Another run recorded the start of this failure first.
      if (!(error instanceof ConditionsFailedError)) throw error;
    }
  }
  await recordFailure(db, { channelId: channel.id, itemId: channel.item_id, error: options.error, now });
}
