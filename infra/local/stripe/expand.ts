import { invalidParam, resourceMissing } from './errors.ts';
import type { Ledger } from './ledger.ts';
import type { ParamReader } from './params.ts';

type ObjectName = 'checkout.session' | 'payment_intent' | 'charge' | 'refund' | 'event';

/** The fields `expand[]` may name, per object, and what each becomes. */
const EXPANDABLE: Record<ObjectName, Record<string, ObjectName>> = {
  'checkout.session': { payment_intent: 'payment_intent' },
  payment_intent: { latest_charge: 'charge' },
  charge: { payment_intent: 'payment_intent' },
  refund: { payment_intent: 'payment_intent', charge: 'charge' },
  event: {},
};

/**
 * Refuses, before anything runs, an `expand[]` path that names a field the object cannot expand (Stripe:
 * "This property cannot be expanded"). A list's paths start with `data.`.
 */
export function checkExpand(paths: string[], root: ObjectName, list = false): void {
  for (const path of paths) {
    const parts = path.split('.');
    if (list && parts.shift() !== 'data')
      throw invalidParam('expand', `This property cannot be expanded (${path}).`);
    let type: ObjectName | undefined = root;
    for (const part of parts) {
      type = type ? EXPANDABLE[type][part] : undefined;
      if (!type) throw invalidParam('expand', `This property cannot be expanded (${path}).`);
    }
  }
}

const load = (ledger: Ledger, type: ObjectName, id: string): Record<string, unknown> => {
  switch (type) {
    case 'payment_intent':
      return { ...ledger.viewIntent(ledger.intent(id)) };
    case 'charge':
      return { ...ledger.viewCharge(ledger.charge(id)) };
    default:
      throw resourceMissing(type, id, 'expand');
  }
};

function expandPath(ledger: Ledger, object: Record<string, unknown>, parts: string[]): void {
  const [field, ...rest] = parts;
  if (!field) return;
  const type = EXPANDABLE[object.object as ObjectName]?.[field];
  const value = object[field];
  if (!type || value === null || value === undefined) return;
  const expanded = typeof value === 'string' ? load(ledger, type, value) : (value as Record<string, unknown>);
  object[field] = expanded;
  expandPath(ledger, expanded, rest);
}

/** Replaces the ids the paths name by their objects (a list's `data.` paths, each of its items). */
export function applyExpand<T extends object>(ledger: Ledger, object: T, paths: string[]): T {
  if (paths.length === 0) return object;
  const copy = structuredClone(object) as Record<string, unknown>;
  for (const path of paths) {
    const parts = path.split('.');
    if (copy.object === 'list') {
      parts.shift();
      for (const item of copy.data as Record<string, unknown>[]) expandPath(ledger, item, parts);
    } else expandPath(ledger, copy, parts);
  }
  return copy as T;
}

/** `limit`, `starting_after` and `ending_before`, as every Stripe list takes them. */
export interface PageParams {
  limit: number;
  startingAfter: string | undefined;
  endingBefore: string | undefined;
}

export function readPage(reader: ParamReader): PageParams {
  const page = {
    limit: reader.integer('limit', { min: 1, max: 100 }) ?? 10,
    startingAfter: reader.string('starting_after'),
    endingBefore: reader.string('ending_before'),
  };
  if (page.startingAfter && page.endingBefore)
    throw invalidParam(
      'ending_before',
      'You may only specify one of these parameters: ending_before, starting_after.',
    );
  return page;
}

/**
 * One page of a list, newest first, with Stripe's cursors: `starting_after` goes on to older records,
 * `ending_before` back to newer ones; `has_more` says whether more lie that way.
 */
export function listPage<R extends { id: string; seq: number }, V>(options: {
  records: R[];
  page: PageParams;
  objectName: string;
  url: string;
  view: (record: R) => V;
}) {
  const { page } = options;
  const newestFirst = [...options.records].sort((a, b) => b.seq - a.seq);
  const cursorId = page.startingAfter ?? page.endingBefore;
  let items: R[];
  let hasMore: boolean;
  if (cursorId === undefined) {
    items = newestFirst.slice(0, page.limit);
    hasMore = newestFirst.length > page.limit;
  } else {
    const at = newestFirst.findIndex((record) => record.id === cursorId);
    if (at < 0)
      throw resourceMissing(
        options.objectName,
        cursorId,
        page.startingAfter ? 'starting_after' : 'ending_before',
      );
    if (page.startingAfter) {
      const older = newestFirst.slice(at + 1);
      items = older.slice(0, page.limit);
      hasMore = older.length > page.limit;
    } else {
      const newer = newestFirst.slice(0, at);
      items = newer.slice(Math.max(0, newer.length - page.limit));
      hasMore = newer.length > page.limit;
    }
  }
  return { object: 'list' as const, data: items.map(options.view), has_more: hasMore, url: options.url };
}
