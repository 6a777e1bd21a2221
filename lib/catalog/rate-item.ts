import type { Tenant, TenantItem } from '../config/index.ts';
import { dayOfWeek, todayIn } from '../kernel/dates.ts';
import type { DateWords } from '../kernel/guest-words.ts';
import { applyDiscount, pricesOn, slotTotal } from './pricing.ts';
import { nothingChosen, partShortfalls, soldOutReason } from './refusal-reasons.ts';
import { dateRuleErrors, isClosed, paramRuleErrors } from './rules.ts';
import { type RequestedSpan, resolveSpan, type Slot, type Span, SpanError } from './span.ts';

/** How strictly rules apply: all, all but date-based ones (`soft`), or none (`off`); stock always. */
export type RulesMode = 'on' | 'soft' | 'off';

/** The outcome of rating an item: bookable, or why not. */
export type RateStatus = 'AVAILABLE' | 'SOLDOUT' | 'UNAVAILABLE' | 'RULE';

/** The tenant facts the engine needs. */
export interface RatingTenant {
  timeZone: string;
  decimals: number;
  discounts: Tenant['discounts'];
  /** Whether a line of nobody at no charge may be booked (`settings.allow_free_bookings`, default false). */
  allowFreeBookings?: boolean;
  /** The tenant's locale in BCP 47 (`en-CA`), for the dates in messages; English when absent. */
  locale?: string;
}

/** What is asked of one item. */
export interface RateRequest extends RequestedSpan {
  /** Requested quantities by parameter id; parameters not sent take the item's default. */
  params: Record<string, number>;
  discountCode?: string;
  rules: RulesMode;
  /** Optional package parts opted into, by item id. */
  optIn?: number[];
}

/** Reads how much of an item's slot is used (live holds plus active bookings). */
export type StockLookup = (itemId: number, slotKey: string) => number;

/** The stock of one slot: T capacity, B used, A available. */
export interface SlotStock {
  T: number;
  B: number;
  A: number;
}

/** The rate of one slot (or, for hourly items, of one local date summed over its hours). */
export interface SlotRate {
  status: 'A' | 'S' | 'C';
  /** Minor units per parameter for one unit of it, and `_item` for the per-item price. */
  price: Record<string, number>;
  /** The slot's total for the requested quantities, in minor units. */
  subTotal: number;
  stock: SlotStock;
  /** The index (1-based) of the last tenant rate that applied to this slot, 0 for the base price. */
  rate: number;
  /** Which rate priced each parameter (1-based; absent for the base price). */
  sources: Record<string, number>;
  dow: number;
}

/**
 * The prices one seasonal or day-of-week rate (a rate event) set on a rating: per parameter, at what amount
 * and on how many slots.
 */
export type RateEventPrices = Record<string, { amount: number; days: number }>;

/** A rated package part. */
export interface RatedPart {
  itemId: number;
  name: string;
  qty: number;
  optional: boolean;
  included: boolean;
  subTotal: number;
  available: number;
}

/** Everything the wire needs about one rated item. */
export interface RatedItem {
  status: RateStatus;
  errors: string[];
  span?: Span;
  quantities: Record<string, number>;
  /** Stock units one line of this item takes per slot. */
  units: number;
  slots: { slot: Slot; rate: SlotRate }[];
  subTotal: number;
  discount: number;
  discountCode?: string;
  discountError?: string;
  total: number;
  events: RateEventPrices[];
  /** The least A over the span (capped stock for packages). */
  available: number;
  parts: RatedPart[];
}

/** The quantities of an item's parameters: as requested, else the item's default. */
export function quantitiesFor(item: TenantItem, requested: Record<string, number>): Record<string, number> {
  const quantities: Record<string, number> = {};
  for (const [id, param] of Object.entries(item.params)) quantities[id] = requested[id] ?? param.def;
  return quantities;
}

/**
 * Stock units one line takes per slot: the sum of the quantities of the parameters that count toward
 * stock, or 1 when none does.
 */
export function unitsFor(item: TenantItem, quantities: Record<string, number>): number {
  let counted = false;
  let units = 0;
  for (const [id, param] of Object.entries(item.params)) {
    if (!param.counts_stock) continue;
    counted = true;
    units += quantities[id] ?? 0;
  }
  return counted ? units : 1;
}

/** The reason a line of nobody at no charge is refused. */
export const NOTHING_FOR_NOTHING = 'Choose at least one: a booking of nobody at no charge is not taken';

/**
 * Whether a line is nobody at no charge: its sub-total (before discount, package parts included) is 0 and
 * it books nobody (the item has parameters and every quantity is 0). An item without parameters books the
 * item itself, and a paid item (its own price) is a booking of the item.
 */
export const isNothingForNothing = (subTotal: number, quantities: Record<string, number>): boolean => {
  const values = Object.values(quantities);
  return subTotal === 0 && values.length > 0 && values.every((quantity) => quantity === 0);
};

/** The stock of an item's slot: capacity (per-date override or stock) less what is used. */
export function stockOf(item: TenantItem, slot: Slot, used: StockLookup): SlotStock {
  const capacity = item.stock_overrides[slot.date] ?? item.stock;
  if (item.unlimited) return { T: capacity, B: 0, A: capacity };
  const booked = used(item.item_id, slot.key);
  return { T: capacity, B: booked, A: Math.max(0, capacity - booked) };
}

/** One event per tenant rate used: each parameter it priced, at its amount, on how many slots. */
const collectEvents = (slots: { rate: SlotRate }[]): RateEventPrices[] => {
  const events = new Map<number, RateEventPrices>();
  for (const { rate } of slots) {
    for (const id in rate.sources) {
      const index = rate.sources[id] as number;
      const event = events.get(index) ?? {};
      const entry = event[id] ?? { amount: rate.price[id] ?? 0, days: 0 };
      entry.days += 1;
      event[id] = entry;
      events.set(index, event);
    }
  }
  return [...events.entries()].sort(([a], [b]) => a - b).map(([, event]) => event);
};

/** The inputs of rating one item. */
export interface RateItemInput {
  item: TenantItem;
  /** For a package: its parts with their items. */
  parts?: { item: TenantItem; qty: number; optional: boolean }[];
  request: RateRequest;
  stock: StockLookup;
  tenant: RatingTenant;
  /** Labels of the booking parameters, for messages. */
  labels: Record<string, string>;
  now: number;
}

const unrated = (
  status: RateStatus,
  errors: string[],
  quantities: Record<string, number>,
  units: number,
): RatedItem => ({
  status,
  errors,
  quantities,
  units,
  slots: [],
  subTotal: 0,
  discount: 0,
  total: 0,
  events: [],
  available: 0,
  parts: [],
});

/**
 * Rates one item for a span: prices per slot (base, then the last matching seasonal or day-of-week rate),
 * stock per slot from the counters, parameter and date rules (relaxed by `soft`/`off`, never stock), the
 * discount per line (half-up), and for packages the parts' prices and the least availability they allow.
 */
export function rateItem(input: RateItemInput): RatedItem {
  const { item, request, tenant } = input;
  const quantities = quantitiesFor(item, request.params);
  const units = unitsFor(item, quantities);
  let span: Span;
  try {
    span = resolveSpan(item.unit, request, tenant.timeZone);
  } catch (error) {
    if (error instanceof SpanError) return unrated('UNAVAILABLE', [error.message], quantities, units);
    throw error;
  }
  const words: DateWords = { locale: tenant.locale ?? 'en', today: todayIn(tenant.timeZone, input.now) };

  const ruleErrors: string[] = [];
  if (request.rules !== 'off') ruleErrors.push(...paramRuleErrors(item, quantities, input.labels));
  if (request.rules === 'on') ruleErrors.push(...dateRuleErrors(item, span, words));
  if (units <= 0) {
    // A required parameter that counts may already have said it in the same words.
    const reason = nothingChosen(item, input.labels, words.locale);
    if (!ruleErrors.includes(reason)) ruleErrors.push(reason);
  }

  const partRates = (input.parts ?? []).map((part) => {
    const included = !part.optional || (request.optIn ?? []).includes(part.item.item_id);
    const partQuantities = quantitiesFor(part.item, request.params);
    const perPackage = part.qty * unitsFor(part.item, partQuantities);
    const slots = span.slots.map((slot) => {
      const { price } = pricesOn(part.item, slot.date, tenant.decimals);
      const stock = stockOf(part.item, slot, input.stock);
      return {
        slot,
        subTotal: slotTotal(price, partQuantities) * part.qty,
        stock,
        closed: isClosed(part.item, slot.date),
      };
    });
    return { part, included, perPackage, slots };
  });

  const slots = span.slots.map((slot, index) => {
    const { price, rate, sources } = pricesOn(item, slot.date, tenant.decimals);
    let stock = stockOf(item, slot, input.stock);
    let closed = isClosed(item, slot.date);
    let partsLimit = Number.POSITIVE_INFINITY;
    for (const part of partRates) {
      const partSlot = part.slots[index];
      if (!part.included || !partSlot) continue;
      price._item = (price._item ?? 0) + partSlot.subTotal;
      if (part.part.optional) continue;
      closed ||= partSlot.closed;
      partsLimit = Math.min(
        partsLimit,
        part.perPackage > 0 ? Math.floor(partSlot.stock.A / part.perPackage) : 0,
      );
    }
    if (partsLimit !== Number.POSITIVE_INFINITY) {
      // A package's A: what its required parts allow, capped by its own stock unless it is unlimited. The
      // parts allow whole lines of this request; a package whose own parameters count takes `units` of its
      // own stock per line, so its A is in those units.
      const partsAllow = partsLimit * Math.max(1, units);
      const A = item.unlimited ? partsAllow : Math.min(stock.A, partsAllow);
      stock = item.unlimited ? { T: A, B: 0, A } : { T: stock.T, B: stock.T - A, A };
    }
    const enough = item.unlimited && !input.parts?.length ? true : stock.A >= units;
    const status: SlotRate['status'] = closed && request.rules === 'on' ? 'C' : enough ? 'A' : 'S';
    const slotRate: SlotRate = {
      status,
      price,
      subTotal: slotTotal(price, quantities),
      stock,
      rate,
      sources,
      dow: dayOfWeek(slot.date),
    };
    return { slot, rate: slotRate };
  });

  let subTotal = 0;
  let available = slots.length ? Number.POSITIVE_INFINITY : 0;
  let soldOut = false;
  let closedDates = false;
  for (const { rate } of slots) {
    subTotal += rate.subTotal;
    available = Math.min(available, rate.stock.A);
    soldOut ||= rate.status === 'S';
    closedDates ||= rate.status === 'C';
  }
  const discount = applyDiscount({ item, start: span.start, subTotal, code: request.discountCode, tenant });
  // Nobody at no charge would still hold a unit (a cabin priced per guest, asked for no guests): a
  // script could fill the calendar for free. A price of 0 with people (a free tour's seats) and a
  // discount down to 0 are the tenant's own prices and stay bookable; a gift certificate is payment.
  // One reason is enough: a line already refused by a rule (a required guest) does not get this one too.
  if (!tenant.allowFreeBookings && !ruleErrors.length && isNothingForNothing(subTotal, quantities)) {
    ruleErrors.push(NOTHING_FOR_NOTHING);
  }

  const status: RateStatus = closedDates
    ? 'UNAVAILABLE'
    : ruleErrors.length
      ? 'RULE'
      : soldOut
        ? 'SOLDOUT'
        : 'AVAILABLE';
  const errors = [...ruleErrors];
  // A package's required parts say which of them is closed or short, and on which dates.
  const partReasons = partShortfalls(partRates, { closedCounts: request.rules === 'on', words });
  errors.push(...partReasons.closed);
  if (soldOut) {
    if (partReasons.soldOut.length) errors.push(...partReasons.soldOut);
    else errors.push(soldOutReason(span, available));
  }
  return {
    status,
    errors,
    span,
    quantities,
    units,
    slots,
    subTotal,
    discount: discount.discount,
    ...(discount.code ? { discountCode: discount.code } : {}),
    ...(discount.error ? { discountError: discount.error } : {}),
    total: subTotal - discount.discount,
    events: collectEvents(slots),
    available,
    parts: partRates.map((part) => ({
      itemId: part.part.item.item_id,
      name: part.part.item.name,
      qty: part.part.qty,
      optional: part.part.optional,
      included: part.included,
      subTotal: part.slots.reduce((sum, slot) => sum + slot.subTotal, 0),
      available: part.slots.length ? Math.min(...part.slots.map((slot) => slot.stock.A)) : 0,
    })),
  };
}
