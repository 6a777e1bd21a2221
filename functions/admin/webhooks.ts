import * as z from 'zod/mini';
import { assertNotPartner } from '#lib/access/index.ts';
import { validationError } from '#lib/http/errors.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { unixSeconds } from '#lib/kernel/time.ts';
import type { StoredDelivery, StoredEndpoint } from '#lib/webhooks/index.ts';
import { enableWebhook, listWebhookDeliveries, listWebhooks, replayWebhook } from '#lib/webhooks/index.ts';
import { readPaging, readTimeFilter } from '../bookings/list.ts';

const seconds = (ms: number | undefined) => (ms ? unixSeconds(ms) : 0);

/** An endpoint as staff see it: the tenant file's entry and its delivery state, times in Unix seconds. */
export const presentWebhook = (endpoint: StoredEndpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  format: endpoint.format,
  enabled: endpoint.enabled ? 1 : 0,
  state: endpoint.active ? 'enabled' : 'disabled',
  disabled_reason: endpoint.disabled_reason ?? '',
  disabled_at: seconds(endpoint.disabled_at),
  last_success_at: seconds(endpoint.last_success_at),
  last_failure_at: seconds(endpoint.last_failure_at),
  consecutive_failures: endpoint.consecutive_failures,
  in_file: endpoint.in_file ? 1 : 0,
});

const presentDelivery = (delivery: StoredDelivery) => ({
  event_id: delivery.event_id,
  event_type: delivery.event_type,
  event_at: seconds(delivery.event_at),
  booking_id: delivery.booking_id,
  status: delivery.status,
  failures: delivery.failures,
  next_at: delivery.status === 'pending' ? seconds(delivery.next_at) : 0,
  attempts: delivery.attempts.map((attempt) => ({
    at: seconds(attempt.at),
    status: attempt.status,
    duration_ms: attempt.duration_ms,
    outcome: attempt.outcome,
    error: attempt.error ?? '',
    body: attempt.body ?? '',
  })),
});

/** GET webhook (staff): every endpoint with its state, last success and consecutive failures. */
export const createListWebhooks =
  (deps: { db: Db }): RouteHandler =>
  async ({ input, caller }) => {
    parseInput(noParameters, input);
    assertNotPartner(caller);
    const endpoints = await listWebhooks(deps.db);
    return {
      body: {
        webhooks: Object.fromEntries(endpoints.map((endpoint) => [endpoint.id, presentWebhook(endpoint)])),
      },
      request: { records: endpoints.length },
    };
  };

export const pagingSchema = z.strictObject({
  limit: z.optional(z.string().check(z.maxLength(40))),
  page: z.optional(z.string().check(z.maxLength(40))),
});

/** GET webhook/{id}/delivery (staff): the endpoint's recent deliveries with their attempts, paged. */
export const createListDeliveries =
  (deps: { db: Db }): RouteHandler =>
  async ({ input, params, caller }) => {
    assertNotPartner(caller);
    const problems: Record<string, string> = {};
    const { limit, page } = readPaging(parseInput(pagingSchema, input), problems);
    if (Object.keys(problems).length) throw validationError(problems);
    const { rows, total } = await listWebhookDeliveries(deps.db, {
      endpointId: params.webhook_id ?? '',
      limit,
      page,
    });
    return {
      body: { deliveries: rows.map(presentDelivery) },
      request: {
        id: params.webhook_id ?? '',
        records: rows.length,
        limit,
        page,
        pages: Math.max(1, Math.ceil(total / limit)),
        total_records: total,
      },
    };
  };

export const replaySchema = z.strictObject({ since: z.string().check(z.maxLength(40)) });

/**
 * POST webhook/{id}/replay (staff): re-sends what happened `since` (a date or Unix seconds, as the
 * booking lists take them) with the same event ids.
 */
export const createReplay =
  (deps: { db: Db; replayPageSize?: number | undefined }): RouteHandler =>
  async ({ input, params, caller, config, now, remainingMs }) => {
    assertNotPartner(caller);
    const query = parseInput(replaySchema, input);
    const range = readTimeFilter(query.since, config, now);
    if (!range || range.from < 0) {
      throw validationError({ since: 'a date (YYYYMMDD) or Unix time, optionally after >' });
    }
    const replay = await replayWebhook(deps.db, {
      endpointId: params.webhook_id ?? '',
      since: range.from * 1000,
      now,
      retentionDays: config.settings.webhooks.retention_days,
      remainingMs,
      ...(deps.replayPageSize ? { pageSize: deps.replayPageSize } : {}),
    });
    return {
      body: {
        webhook: presentWebhook(replay.endpoint),
        replay: {
          since: range.from,
          events: replay.events,
          truncated: replay.truncated ? 1 : 0,
          ...(replay.truncated && replay.last ? { next_since: seconds(replay.last) } : {}),
        },
      },
      request: { id: replay.endpoint.id, records: replay.events },
    };
  };

/** POST webhook/{id}/enable (staff): resumes deliveries; what was missed while disabled takes a replay. */
export const createEnable =
  (deps: { db: Db }): RouteHandler =>
  async ({ input, params, caller, now }) => {
    parseInput(noParameters, input);
    assertNotPartner(caller);
    const endpoint = await enableWebhook(deps.db, { endpointId: params.webhook_id ?? '', now });
    return { body: { webhook: presentWebhook(endpoint) }, request: { id: endpoint.id, records: 1 } };
  };
