import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { isInactive } from '#lib/bookings/booking.ts';
import type { Tenant } from '#lib/config/tenant-schema.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { formatAmount } from '#lib/kernel/money.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { capacityOf } from '#lib/stock/capacity.ts';
import { counterId } from '#lib/stock/repository.ts';
import type { BookingState } from './manage-traffic.ts';
import type { Ledger } from './traffic.ts';

// The soak's audits, each from committed data (the table's records) or received data (the webhook
// receiver's log), never from the service's own counts; each answers its problems by name.

/** One audit's verdict. */
export interface AuditResult {
  name: string;
  ok: boolean;
  /** What was checked, in numbers. */
  checked: Record<string, number>;
  /** Each problem, naming what broke (at most 50, then a count of the rest). */
  problems: string[];
}

const capped = (problems: string[]): string[] =>
  problems.length > 50 ? [...problems.slice(0, 50), `…and ${problems.length - 50} more`] : problems;

/** Every record of some entities, by a paged parallel scan: an audit's read of the whole table. */
export async function scanEntities(db: Db, entities: string[]): Promise<Record<string, any>[]> {
  const records: Record<string, any>[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.documents.send(
      new ScanCommand({
        TableName: db.tableName,
        ConsistentRead: true,
        FilterExpression: `entity IN (${entities.map((_, index) => `:e${index}`).join(', ')})`,
        ExpressionAttributeValues: Object.fromEntries(
          entities.map((entity, index) => [`:e${index}`, entity]),
        ),
        ExclusiveStartKey: cursor,
      }),
    );
    records.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return records;
}

/**
 * Whether a booking told as awaiting payment has moved as its payment alone moves it: paid (PART or PAID, with
 * money), or lapsed once its deadline passed.
 */
function movedByPayment(stored: Record<string, any>, told: string): boolean {
  if (!stored.payment || told !== 'PEND') return false;
  if (['PART', 'PAID'].includes(String(stored.status_id))) return Number(stored.paid_total) > 0;
  return isInactive(String(stored.status_id)) && Number(stored.payment.deadline) <= Date.now() / 1000;
}

/**
 * Every booking a client was told about exists, once for its Idempotency-Key, with the total and (unless
 * staff or its payment changed it since) the status it was told, and its lines' items; and every booking in the table
 * comes from a session a client asked to book.
 */
export function auditBookings(bookings: Record<string, any>[], ledger: Ledger, tenant: Tenant): AuditResult {
  const problems: string[] = [];
  const byCode = new Map(bookings.map((booking) => [String(booking.code), booking]));
  const byKey = new Map<string, string>();
  for (const told of ledger.acknowledged) {
    const earlier = byKey.get(told.key);
    if (earlier && earlier !== told.code)
      problems.push(`idempotency key ${told.key} answered two bookings: ${earlier} and ${told.code}`);
    byKey.set(told.key, told.code);
    const stored = byCode.get(told.code);
    if (!stored) {
      problems.push(`booking ${told.code} was acknowledged to a client and does not exist`);
      continue;
    }
    if (Number(stored.booking_id) !== told.bookingId)
      problems.push(`booking ${told.code}: told id ${told.bookingId}, stored ${stored.booking_id}`);
    const total = formatAmount(Number(stored.totals?.total ?? Number.NaN), tenant.locale.decimals);
    // A booking its guest changed (issue 44) is as the last change they were told was made (by its answer, or
    // once its difference was paid); one staff or its guest's cancel moved since, as any change told.
    const states = ledger.changed.get(told.code);
    const now = { total, start: String(stored.start_date) };
    const fits = (state: BookingState) => state.total === now.total && state.start === now.start;
    const last = states?.at(-1);
    if (states && last && !(ledger.restatused.has(told.code) ? states.some(fits) : fits(last)))
      problems.push(
        `booking ${told.code}: changed by its guest to ${last.total} from ${last.start}, stored ${now.total} from ${now.start}`,
      );
    else if (!states && total !== told.total)
      problems.push(`booking ${told.code}: told total ${told.total}, stored ${total}`);
    if (
      !ledger.restatused.has(told.code) &&
      stored.status_id !== told.statusId &&
      !movedByPayment(stored, told.statusId)
    )
      problems.push(`booking ${told.code}: told status ${told.statusId}, stored ${stored.status_id}`);
    const items = Object.values((stored.lines ?? {}) as Record<string, { item_id: number; qty: number }>)
      .map((line) => `${line.item_id}x${line.qty}`)
      .sort();
    const toldItems = told.lines.map((line) => `${line.itemId}x${line.qty}`).sort();
    if (items.join(',') !== toldItems.join(','))
      problems.push(`booking ${told.code}: told lines ${toldItems.join(',')}, stored ${items.join(',')}`);
  }
  const acknowledged = new Set(ledger.acknowledged.map((told) => told.code));
  for (const booking of bookings) {
    if (!ledger.attempted.has(String(booking.session_id)))
      problems.push(`booking ${booking.code} exists but no client asked to book its session`);
    else if (!acknowledged.has(String(booking.code)))
      problems.push(`booking ${booking.code} exists but its client was never told (gave up retrying)`);
  }
  return {
    name: 'bookings: every acknowledged booking exactly once, as told',
    ok: problems.length === 0,
    checked: { acknowledged: ledger.acknowledged.length, stored: bookings.length },
    problems: capped(problems),
  };
}

/** Units per counter that some lines take: each line's units per quantity times its quantity. */
function linesTake(lines: Record<string, { holds_per_qty?: Record<string, number>; qty?: number }>) {
  const holds: Record<string, number> = {};
  for (const line of Object.values(lines ?? {}))
    for (const [id, units] of Object.entries(line.holds_per_qty ?? {}))
      holds[id] = (holds[id] ?? 0) + units * Number(line.qty ?? 1);
  return holds;
}

const sameHolds = (a: Record<string, number>, b: Record<string, number>) =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])].every((id) => (a[id] ?? 0) === (b[id] ?? 0));
const shown = (holds: Record<string, number>) =>
  Object.entries(holds)
    .sort()
    .map(([id, units]) => `${id}:${units}`)
    .join(' ');

/**
 * What is wrong with an active booking's holds, or undefined: they are what its lines take; while a change
 * waits for its payment (issue 44), the larger of what its lines take and what the change's lines will take,
 * counter by counter, so that nobody takes the new stock meanwhile and the old is still the guest's.
 */
function holdsProblem(booking: Record<string, any>): string | undefined {
  const holds = (booking.holds ?? {}) as Record<string, number>;
  const now = linesTake(booking.lines ?? {});
  const next = booking.change ? linesTake(booking.change.to?.lines ?? {}) : {};
  const wanted = { ...now };
  for (const [id, units] of Object.entries(next)) wanted[id] = Math.max(wanted[id] ?? 0, units);
  if (sameHolds(holds, wanted)) return undefined;
  return `${shown(holds)}, its lines take ${shown(now)}${booking.change ? ` and its waiting change's ${shown(next)}` : ''}`;
}

/**
 * No unit sold twice: per item-date, the units of active bookings and channel blocks, summed from the
 * bookings and blocks themselves, are within capacity; each active booking holds what its lines take (and a
 * waiting change's); and the stock invariant holds (npm run reconcile).
 */
export async function auditUnits(
  db: Db,
  records: { bookings: Record<string, any>[]; blocks: Record<string, any>[] },
  tenant: Tenant,
): Promise<AuditResult> {
  const problems: string[] = [];
  const sold = new Map<string, number>();
  const add = (id: string, units: number) => sold.set(id, (sold.get(id) ?? 0) + units);
  for (const booking of records.bookings)
    if (!isInactive(String(booking.status_id))) {
      for (const [id, units] of Object.entries((booking.holds ?? {}) as Record<string, number>))
        add(id, units);
      const wrong = holdsProblem(booking);
      if (wrong) problems.push(`booking ${booking.code}: holds ${wrong}`);
    }
  for (const block of records.blocks)
    add(counterId(Number(block.item_id), String(block.slot)), Number(block.units));
  for (const [id, units] of sold) {
    const [itemId = '', slot = ''] = id.split('|');
    const item = tenant.items.find((entry) => entry.item_id === Number(itemId));
    if (!item) continue;
    const capacity = capacityOf({ ...item, category_name: '' }, slot, tenant.company.timezone);
    if (units > capacity) problems.push(`item ${itemId} ${slot}: ${units} units sold of ${capacity}`);
  }
  const reconcile = await runReconcile(db, { fix: false, now: Date.now() });
  for (const entry of reconcile.discrepancies)
    problems.push(
      `reconcile: item ${entry.itemId} ${entry.slot} used ${entry.used}, holders ${entry.expected} (${entry.kind})`,
    );
  for (const entry of reconcile.clientDiscrepancies)
    problems.push(`reconcile: client budget ${JSON.stringify(entry)}`);
  return {
    name: 'units: none sold twice, and every counter equals its holders',
    ok: problems.length === 0,
    checked: { counters: reconcile.counters, soldSlots: sold.size },
    problems: capped(problems),
  };
}

/** Nothing leaked: once drained, no open session that expired still holds stock. */
export function auditLeaks(sessions: Record<string, any>[], now: number): AuditResult {
  const nowSeconds = Math.floor(now / 1000);
  const leaking = sessions.filter(
    (session) =>
      session.status === 'open' &&
      Object.keys((session.holds ?? {}) as object).length > 0 &&
      Number(session.expires_at) <= nowSeconds,
  );
  return {
    name: 'holds: every expired hold given back',
    ok: leaking.length === 0,
    checked: { sessions: sessions.length },
    problems: capped(
      leaking.map(
        (session) =>
          `session ${session.id} expired ${nowSeconds - Number(session.expires_at)} s ago still holding`,
      ),
    ),
  };
}

/** A fault and its window: from its start until the service answered well again. */
export interface FaultWindow {
  name: string;
  startedAt: number;
  recoveredAt: number;
  /** false: the service must answer well through this fault (it is listed, never an excuse). */
  excuses?: boolean;
  /**
   * The provider's API failing: the service's 503 `busy` naming the provider (a refund it could not send yet,
   * with Retry-After) is its answer through it, as long as the same call succeeds on retry.
   */
  provider?: boolean;
}

/** No 5xx or network error outside the fault windows; inside them, every call that failed succeeded on retry. */
export function auditAnswers(ledger: Ledger, windows: FaultWindow[], graceMs = 15_000): AuditResult {
  const problems: string[] = [];
  const inWindow = (at: number, providerBusy: boolean) =>
    windows.some(
      (window) =>
        (window.excuses !== false || (providerBusy && window.provider)) &&
        at >= window.startedAt &&
        at <= window.recoveredAt + graceMs,
    );
  for (const entry of ledger.calls) {
    for (const at of entry.failedAt)
      if (!inWindow(at, entry.providerBusyAt?.includes(at) ?? false))
        problems.push(
          `${entry.route}: a 5xx or network error at ${new Date(at).toISOString()}, outside any fault (answers ${entry.statuses.join(' ')}, 0 a network error or the client's 15 s timeout)`,
        );
    if (!entry.ok) problems.push(`${entry.route}: never succeeded (${entry.statuses.join(' ')})`);
  }
  return {
    name: 'answers: no 5xx outside faults; every refused call succeeded on retry',
    ok: problems.length === 0,
    checked: {
      calls: ledger.calls.length,
      retried: ledger.calls.filter((entry) => entry.statuses.length > 1).length,
    },
    problems: capped(problems),
  };
}
