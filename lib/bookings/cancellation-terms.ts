import { type CancellationPolicy, getItemsById, type StoredConfig } from '../config/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import { getSession, isExpired, isSessionId, type SessionLine } from '../sessions/index.ts';
import { type CancellationSnapshot, resolveCancellation, startOfLines } from './cancellation.ts';

// Where the policies of lines come from (issue 44): the items' own, read only for items the tenant load
// listed as having one, else the tenant's; and the terms `booking/form` shows, of the cart or the tenant.

/** The own policies of the lines' items, read only for items the tenant load listed as having one. */
export async function itemPoliciesOf(
  db: Db,
  config: StoredConfig,
  lines: Pick<SessionLine, 'item_id'>[],
): Promise<Map<number, CancellationPolicy>> {
  const listed = new Set(config.items_with_cancellation ?? []);
  const ids = [...new Set(lines.map((line) => line.item_id))].filter((id) => listed.has(id));
  const items = ids.length ? await getItemsById(db, ids) : [];
  return new Map(items.flatMap((item) => (item.cancellation ? [[item.item_id, item.cancellation]] : [])));
}

/** The policies a booking of `lines` would be sold under now. */
export const cancellationOfLines = async (
  db: Db,
  config: StoredConfig,
  lines: SessionLine[],
): Promise<CancellationSnapshot | undefined> =>
  resolveCancellation(lines, {
    tenant: config.policy.cancellation,
    items: await itemPoliciesOf(db, config, lines),
  });

/** The cancellation terms a guest reads before booking: the cart's (with its start and names), or the tenant's. */
export interface CancellationTerms {
  snapshot: CancellationSnapshot;
  /** When the cart starts (ms); none without a cart: the words are lengths before the start. */
  start?: number;
  /** The cart's line names, by line id. */
  names?: Record<string, string>;
}

/**
 * The terms of an open cart with lines (its lines' policies and dates), or, without one (no session, or one
 * unknown, expired, booked or empty), the tenant's policy; undefined when neither has a policy.
 */
export async function cancellationTermsFor(
  ctx: { db: Db; config: StoredConfig; now: number },
  sessionId: string | undefined,
): Promise<CancellationTerms | undefined> {
  const session = sessionId && isSessionId(sessionId) ? await getSession(ctx.db, sessionId) : undefined;
  const lines = session && !isExpired(session, ctx.now) ? Object.values(session.lines) : [];
  const start = startOfLines(lines, ctx.config.company.timezone);
  if (start !== undefined) {
    const snapshot = await cancellationOfLines(ctx.db, ctx.config, lines);
    return (
      snapshot && {
        snapshot,
        start,
        names: Object.fromEntries(lines.map((line) => [line.line_id, line.name])),
      }
    );
  }
  const tenant = ctx.config.policy.cancellation;
  return tenant && { snapshot: { policies: [{ policy: tenant, lines: [] }] } };
}
