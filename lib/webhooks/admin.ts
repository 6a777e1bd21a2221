import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { listDeliveriesOfEndpoint, requeueDelivery } from './delivery-repository.ts';
import { enableEndpoint, getEndpoint, listEndpoints, type StoredEndpoint } from './endpoint-repository.ts';
import { listWebhookEventsBetween } from './event-repository.ts';
import type { StoredDelivery } from './outbox.ts';
import { matchesEvent } from './subscriptions.ts';

/** The most events one replay re-sends, unless told otherwise; a longer one is asked again from where it stopped. */
const MAX_REPLAY_EVENTS = 1000;
const REQUEUES_AT_ONCE = 10;
/**
 * The time a replay keeps for answering: with less left before the function's deadline it stops between
 * two batches and answers `truncated` with where to go on, rather than run into the timeout (a 500 that
 * would not say how much was queued).
 */
const REPLAY_ANSWER_MARGIN_MS = 2_000;

/** Every webhook endpoint with the state of its deliveries, by id. */
export const listWebhooks = (db: Db): Promise<StoredEndpoint[]> => listEndpoints(db);

/** One endpoint, or 404 `not_found`. */
export async function findWebhook(db: Db, endpointId: string): Promise<StoredEndpoint> {
  const endpoint = /^[a-z0-9][a-z0-9_-]{0,39}$/.test(endpointId)
    ? await getEndpoint(db, endpointId)
    : undefined;
  if (!endpoint) {
    throw new DomainError('not_found', `No webhook endpoint ${endpointId.slice(0, 40)}`, {
      webhook_id: endpointId.slice(0, 40),
    });
  }
  return endpoint;
}

/** A page of an endpoint's recent deliveries, newest first. */
export async function listWebhookDeliveries(
  db: Db,
  options: { endpointId: string; limit: number; page: number },
): Promise<{ rows: StoredDelivery[]; total: number }> {
  await findWebhook(db, options.endpointId);
  return listDeliveriesOfEndpoint(db, {
    endpointId: options.endpointId,
    skip: (options.page - 1) * options.limit,
    take: options.limit,
  });
}

/**
 * Re-sends to an endpoint every kept event it subscribes to from `since` (milliseconds) on, with the
 * same event ids, oldest first; at most `pageSize` (MAX_REPLAY_EVENTS) at a time. A disabled endpoint is refused
 * (409 `invalid_status`): enable it first.
 */
export async function replayWebhook(
  db: Db,
  options: {
    endpointId: string;
    since: number;
    now: number;
    retentionDays: number;
    /** Milliseconds left before the caller's deadline (the Lambda's); none for a CLI. */
    remainingMs?: () => number;
    /** The most events this replay lists (MAX_REPLAY_EVENTS unless set; tests page with a few). */
    pageSize?: number;
  },
): Promise<{ endpoint: StoredEndpoint; events: number; truncated: boolean; last?: number }> {
  const endpoint = await findWebhook(db, options.endpointId);
  assertInFile(endpoint);
  if (!endpoint.active) {
    throw new DomainError('invalid_status', 'The endpoint is disabled; enable it before a replay', {
      webhook_id: endpoint.id,
      disabled_reason: endpoint.disabled_reason ?? '',
    });
  }
  const pageSize = options.pageSize ?? MAX_REPLAY_EVENTS;
  const events = await listWebhookEventsBetween(db, {
    from: options.since,
    to: options.now,
    limit: pageSize,
  });
  const wanted = events.filter((event) =>
    endpoint.events.some((pattern) => matchesEvent(pattern, event.event.type)),
  );
  // A few at a time: a replay of a thousand events takes seconds, not minutes. The first batch always
  // goes, so asking again from where a replay stopped always makes progress.
  let queued = 0;
  for (let start = 0; start < wanted.length; start += REQUEUES_AT_ONCE) {
    if (start > 0 && (options.remainingMs?.() ?? Number.POSITIVE_INFINITY) < REPLAY_ANSWER_MARGIN_MS) break;
    queued = Math.min(wanted.length, start + REQUEUES_AT_ONCE);
    await Promise.all(
      wanted.slice(start, start + REQUEUES_AT_ONCE).map((event) =>
        requeueDelivery(db, {
          endpointId: endpoint.id,
          event,
          now: options.now,
          retentionDays: options.retentionDays,
        }),
      ),
    );
  }
  // Out of time, it goes on from the last event it queued (that second's events may be sent twice, with
  // their ids: receivers already take a delivery at least once); out of room, from the last it listed.
  const outOfTime = queued < wanted.length;
  const last = outOfTime ? wanted[queued - 1]?.event.at : events.at(-1)?.event.at;
  return {
    endpoint,
    events: queued,
    truncated: outOfTime || events.length >= pageSize,
    ...(last !== undefined ? { last } : {}),
  };
}

/**
 * An endpoint the tenant file disables (or no longer lists) is the file's to resume: neither `enable` nor
 * a replay may send to it (409 `invalid_status`).
 */
function assertInFile(endpoint: StoredEndpoint): void {
  if (!endpoint.enabled || !endpoint.in_file) {
    throw new DomainError(
      'invalid_status',
      'The tenant file disables this endpoint; set enabled: true there and load it',
      { webhook_id: endpoint.id },
    );
  }
}

/** Enables an endpoint again: new events are delivered; what was missed while disabled takes a replay. */
export async function enableWebhook(
  db: Db,
  options: { endpointId: string; now: number },
): Promise<StoredEndpoint> {
  assertInFile(await findWebhook(db, options.endpointId));
  await enableEndpoint(db, options);
  return findWebhook(db, options.endpointId);
}
