import { randomUUID } from 'node:crypto';
import type { StoredConfig } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import {
  claimDelivery,
  finishDelivery,
  firstPendingOfBooking,
  listDueDeliveries,
  rescheduleDelivery,
} from './delivery-repository.ts';
import {
  type DisabledReason,
  disableEndpointWithEvent,
  getEndpoint,
  recordEndpointOutcome,
  type StoredEndpoint,
} from './endpoint-repository.ts';
import { getWebhookEvent } from './event-repository.ts';
import type { DeliveryAttempt, StoredDelivery, StoredWebhookEvent } from './outbox.ts';
import type { WebhookSecretStore } from './secret-store.ts';
import type { WebhookResponse } from './send.ts';
import { signedHeaders } from './sign.ts';
import { retryDelayMs, subscribersOf } from './subscriptions.ts';

/** The body of an event in an endpoint's format, or undefined when that format has none for it. */
export type RenderWebhook = (
  format: StoredEndpoint['format'],
  event: StoredWebhookEvent,
  config: StoredConfig,
) => string | undefined;

/** What the dispatcher needs: the table, the tenant, the secrets, how to render and how to send. */
export interface DispatchDeps {
  db: Db;
  config: () => Promise<StoredConfig>;
  secrets: WebhookSecretStore;
  render: RenderWebhook;
  send: (request: { url: string; headers: Record<string, string>; body: string }) => Promise<WebhookResponse>;
  clock?: () => number;
  random?: () => number;
  /** How long one attempt holds its delivery (longer than the 10 s send timeout). */
  leaseMs?: number;
  /** Deliveries read per run. */
  batch?: number;
  /** Notified of every attempt (the dispatcher's log). */
  onAttempt?: (attempt: { delivery: StoredDelivery; response: WebhookResponse }) => void;
}

/** What one run did. */
export interface DispatchReport {
  due: number;
  delivered: number;
  failed: number;
  skipped: number;
  /** Deliveries left for later: an earlier event of the same booking is still pending, or another run holds it. */
  deferred: number;
  /** Endpoints this run disabled (a 410, or the retry schedule spent). */
  disabled: number;
}

/** Deliveries one run reads from the due list, unless told otherwise. */
export const DISPATCH_BATCH = 100;

/** Booking groups worked at once: receivers see each booking's events in order, different bookings in parallel. */
const GROUPS_AT_ONCE = 8;

/**
 * Sends the deliveries that are due, each signed per Standard Webhooks with its event's id. Deliveries of
 * one booking to one endpoint go strictly in the order of its events: one that fails holds the later ones
 * back until it succeeds or fails for good. A failure is retried after the tenant's next delay (with
 * jitter); a 410 Gone, or a failure past the last delay, disables the endpoint and records a
 * `webhook.disabled` event. An endpoint that is disabled gets nothing: its due deliveries are skipped (a
 * replay sends them later). Every step is a conditional write, so runs may overlap and crash at will.
 */
export async function dispatchDue(deps: DispatchDeps): Promise<DispatchReport> {
  const clock = deps.clock ?? Date.now;
  const random = deps.random ?? Math.random;
  const report: DispatchReport = { due: 0, delivered: 0, failed: 0, skipped: 0, deferred: 0, disabled: 0 };
  const due = await listDueDeliveries(deps.db, { now: clock(), limit: deps.batch ?? DISPATCH_BATCH });
  report.due = due.length;
  if (due.length === 0) return report;
  const config = await deps.config();
  const retentionDays = config.settings.webhooks.retention_days;
  const secrets = await deps.secrets.read();

  const groups = new Map<string, StoredDelivery[]>();
  for (const delivery of due) {
    const key = `${delivery.endpoint_id}#${delivery.booking_id}`;
    groups.set(key, [...(groups.get(key) ?? []), delivery]);
  }

  const disable = (endpoint: StoredEndpoint, reason: DisabledReason, now: number) =>
    disableEndpointWithEvent(deps.db, {
      endpointId: endpoint.id,
      reason,
      now,
      event: {
        event: {
          event_id: randomUUID(),
          type: 'webhook.disabled',
          at: now,
          account_id: 0,
          data: { endpoint_id: endpoint.id, reason, url: endpoint.url },
        },
        booking_id: 0,
        sequence: 0,
      },
      subscribers: subscribersOf(config, 'webhook.disabled').filter((id) => id !== endpoint.id),
      retentionDays,
    });

  /** Once a delivery of a booking is done, its next event for the endpoint is due at once. */
  const releaseNext = async (delivery: StoredDelivery, now: number) => {
    const next = await firstPendingOfBooking(deps.db, {
      endpointId: delivery.endpoint_id,
      bookingId: delivery.booking_id,
    });
    if (next && next.failures === 0 && next.next_at > now) {
      await rescheduleDelivery(deps.db, { delivery: next, nextAt: now });
    }
  };

  /** Works one delivery: `next` goes on with the booking's next event, `wait` and `stop` end the group. */
  const deliver = async (delivery: StoredDelivery): Promise<'next' | 'wait' | 'stop'> => {
    const now = clock();
    // Read for every attempt: an endpoint disabled a moment ago gets nothing more.
    const endpoint = await getEndpoint(deps.db, delivery.endpoint_id);
    if (!endpoint?.active) {
      if (
        await finishDelivery(deps.db, {
          delivery,
          status: 'skipped',
          failures: delivery.failures,
          nextAt: delivery.next_at,
          now,
          retentionDays,
        })
      ) {
        report.skipped += 1;
        await releaseNext(delivery, now);
      }
      return 'next';
    }
    const first = await firstPendingOfBooking(deps.db, {
      endpointId: delivery.endpoint_id,
      bookingId: delivery.booking_id,
    });
    if (first && first.event_id !== delivery.event_id) {
      // Behind an earlier event of its booking: wait until that one is due (it is released when done), so
      // deliveries that wait never crowd the due list ahead of other endpoints' and bookings'.
      await rescheduleDelivery(deps.db, { delivery, nextAt: Math.max(first.next_at, now) + 1 });
      return 'wait';
    }
    const leaseId = randomUUID();
    const leaseUntil = now + (deps.leaseMs ?? 30_000);
    if (!(await claimDelivery(deps.db, { delivery, now, leaseUntil, leaseId }))) return 'wait';
    const finish = (options: {
      status: StoredDelivery['status'];
      failures: number;
      nextAt: number;
      attempt?: DeliveryAttempt;
    }) => finishDelivery(deps.db, { delivery, now, leaseId, retentionDays, ...options });
    const event = await getWebhookEvent(deps.db, delivery.event_id);
    const body = event ? deps.render(endpoint.format, event, config) : undefined;
    if (body === undefined) {
      await finish({ status: 'skipped', failures: delivery.failures, nextAt: delivery.next_at });
      report.skipped += 1;
      await releaseNext(delivery, now);
      return 'next';
    }
    const endpointSecrets = secrets[endpoint.id];
    const response: WebhookResponse = endpointSecrets
      ? await deps.send({
          url: endpoint.url,
          body,
          headers: signedHeaders({ messageId: delivery.event_id, body, secrets: endpointSecrets, now }),
        })
      : { outcome: 'failure', durationMs: 0, body: '', error: 'no signing secret for this endpoint' };
    deps.onAttempt?.({ delivery, response });
    const attempt: DeliveryAttempt = {
      at: now,
      status: response.status ?? 0,
      duration_ms: response.durationMs,
      outcome: response.outcome,
      ...(response.error ? { error: response.error } : {}),
      ...(response.body ? { body: response.body } : {}),
    };
    const success = response.outcome === 'success';
    await recordEndpointOutcome(deps.db, { endpointId: endpoint.id, success, now });
    if (success) {
      await finish({ status: 'delivered', failures: 0, nextAt: now, attempt });
      report.delivered += 1;
      await releaseNext(delivery, now);
      return 'next';
    }
    const failures = delivery.failures + 1;
    const delay =
      response.outcome === 'gone'
        ? undefined
        : retryDelayMs(config.settings.webhooks.retry_seconds, failures, random());
    report.failed += 1;
    if (delay === undefined) {
      // Disabled first (with its event, in one transaction): a crash before the delivery is marked failed
      // leaves it pending, and the next run skips it for the disabled endpoint; never the other way round.
      await disable(endpoint, response.outcome === 'gone' ? 'gone' : 'failing', now);
      report.disabled += 1;
      await finish({ status: 'failed', failures, nextAt: now, attempt });
      return 'stop';
    }
    await finish({ status: 'pending', failures, nextAt: now + delay, attempt });
    return 'stop';
  };

  const queue = [...groups.values()].map((group) =>
    group.sort((a, b) => a.sequence - b.sequence || a.event_at - b.event_at),
  );
  const worker = async () => {
    for (let group = queue.shift(); group; group = queue.shift()) {
      for (const [index, delivery] of group.entries()) {
        const outcome = await deliver(delivery);
        if (outcome === 'next') continue;
        report.deferred += group.length - index - (outcome === 'stop' ? 1 : 0);
        break;
      }
    }
  };
  await Promise.all(Array.from({ length: GROUPS_AT_ONCE }, worker));
  return report;
}
