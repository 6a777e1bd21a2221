import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.ts';
import type { StoredConfig } from '../db/tenant-repository.ts';
import {
  claimDelivery,
  type DisabledReason,
  disableEndpoint,
  finishDelivery,
  firstPendingOfBooking,
  getEndpoint,
  getWebhookEvent,
  listDueDeliveries,
  putWebhookEvent,
  recordEndpointOutcome,
  type StoredDelivery,
  type StoredEndpoint,
  type StoredWebhookEvent,
} from '../db/webhook-repository.ts';
import type { WebhookSecretStore } from '../db/webhook-secret-store.ts';
import type { WebhookResponse } from '../webhooks/send.ts';
import { signedHeaders } from '../webhooks/sign.ts';
import { retryDelayMs, subscribersOf } from './webhooks.ts';

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
}

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
  const report: DispatchReport = { due: 0, delivered: 0, failed: 0, skipped: 0, deferred: 0 };
  const due = await listDueDeliveries(deps.db, { now: clock(), limit: deps.batch ?? 100 });
  report.due = due.length;
  if (due.length === 0) return report;
  const config = await deps.config();
  const secrets = await deps.secrets.read();
  const endpoints = new Map<string, Promise<StoredEndpoint | undefined>>();
  const endpointOf = (id: string) => {
    let found = endpoints.get(id);
    if (!found) {
      found = getEndpoint(deps.db, id);
      endpoints.set(id, found);
    }
    return found;
  };

  const groups = new Map<string, StoredDelivery[]>();
  for (const delivery of due) {
    const key = `${delivery.endpoint_id}#${delivery.booking_id}`;
    groups.set(key, [...(groups.get(key) ?? []), delivery]);
  }

  const disable = async (endpoint: StoredEndpoint, reason: DisabledReason, now: number) => {
    endpoints.set(endpoint.id, Promise.resolve({ ...endpoint, active: false }));
    if (!(await disableEndpoint(deps.db, { endpointId: endpoint.id, reason, now }))) return;
    await putWebhookEvent(deps.db, {
      event: {
        event: {
          event_id: randomUUID(),
          type: 'webhook.disabled',
          at: now,
          account_id: 0,
          data: { endpoint_id: endpoint.id, reason, url: endpoint.url },
        },
        booking_id: 0,
      },
      endpointIds: subscribersOf(config, 'webhook.disabled').filter((id) => id !== endpoint.id),
      retentionDays: config.settings.webhooks.retention_days,
    });
  };

  /** Works one delivery: `next` goes on with the booking's next event, `wait` and `stop` end the group. */
  const deliver = async (delivery: StoredDelivery): Promise<'next' | 'wait' | 'stop'> => {
    const now = clock();
    const finish = (options: Omit<Parameters<typeof finishDelivery>[1], 'delivery' | 'now'>) =>
      finishDelivery(deps.db, { delivery, now, ...options });
    const endpoint = await endpointOf(delivery.endpoint_id);
    if (!endpoint?.active) {
      await finish({ status: 'skipped', failures: delivery.failures, nextAt: delivery.next_at });
      report.skipped += 1;
      return 'next';
    }
    const first = await firstPendingOfBooking(deps.db, {
      endpointId: delivery.endpoint_id,
      bookingId: delivery.booking_id,
    });
    if (first && first.event_id !== delivery.event_id) return 'wait';
    if (!(await claimDelivery(deps.db, { delivery, now, leaseUntil: now + (deps.leaseMs ?? 30_000) }))) {
      return 'wait';
    }
    const event = await getWebhookEvent(deps.db, delivery.event_id);
    const body = event ? deps.render(endpoint.format, event, config) : undefined;
    if (body === undefined) {
      await finish({ status: 'skipped', failures: delivery.failures, nextAt: delivery.next_at });
      report.skipped += 1;
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
    const attempt = {
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
      return 'next';
    }
    const failures = delivery.failures + 1;
    const delay =
      response.outcome === 'gone'
        ? undefined
        : retryDelayMs(config.settings.webhooks.retry_seconds, failures, random());
    if (delay === undefined) {
      await finish({ status: 'failed', failures, nextAt: now, attempt });
      await disable(endpoint, response.outcome === 'gone' ? 'gone' : 'failing', now);
      report.failed += 1;
      return 'stop';
    }
    await finish({ status: 'pending', failures, nextAt: now + delay, attempt });
    report.failed += 1;
    return 'stop';
  };

  const queue = [...groups.values()].map((group) => group.sort((a, b) => a.event_at - b.event_at));
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
