import type { RatedItem, SlotRate } from '#lib/catalog/index.ts';
import type { StoredConfig, StoredItem } from '#lib/config/index.ts';
import { RawJson } from '#lib/http/raw-json.ts';
import { describeDates, toLocalDate, type Ymd } from '#lib/kernel/dates.ts';
import { joinReasons, unitCount, unitNoun } from '#lib/kernel/guest-words.ts';
import { formatAmount, formatDisplay } from '#lib/kernel/money.ts';
import { escapeHtml } from '#lib/kernel/text.ts';
import type { ItemQuery } from './query.ts';

const currencyOf = (config: StoredConfig) => ({
  symbol: config.locale.currency_symbol,
  decimals: config.locale.decimals,
});

/**
 * What depends only on the item and the configuration, kept with the item for as long as both stay the
 * same objects (the catalogue and the configuration are kept per instance): a list presents each item
 * once per catalogue, not once per request. The kept values are never changed, only copied.
 */
function keptFor<T>(
  kept: WeakMap<StoredItem, { config: StoredConfig; value: T }>,
  build: (item: StoredItem, config: StoredConfig) => T,
) {
  return (item: StoredItem, config: StoredConfig): T => {
    const entry = kept.get(item);
    if (entry?.config === config) return entry.value;
    const value = Object.freeze(build(item, config));
    kept.set(item, { config, value });
    return value;
  };
}

/**
 * An item's booking parameters as the rated item lists them, less the price and the quantity asked: so a
 * client (the widget) can offer the quantities, with their labels and bounds, before any dates are chosen.
 */
const paramDefinitions = keptFor(new WeakMap(), (item, config) =>
  Object.fromEntries(
    Object.entries(item.params).map(([id, param]) => [
      id,
      {
        group: config.params[id]?.group ?? 0,
        lock: '0',
        lbl: config.params[id]?.lbl ?? id,
        def: param.def,
        req: param.req ? 1 : 0,
        hide: param.hide ? 1 : null,
        range: param.range ? 1 : 0,
        MIN: param.min,
        MAX: param.max,
      },
    ]),
  ),
);

/** An image's URL: a path on this service (`/widget/…`) becomes a URL on its public address. */
const imageUrl = (src: string, config: StoredConfig): string =>
  src.startsWith('/') && !src.startsWith('//') && config.service_url ? `${config.service_url}${src}` : src;

/** The unrated wire fields of an item (reference §2.2, the wire notes' common extras, its parameters). */
export const presentItem = keptFor(
  new WeakMap(),
  (item, config): Record<string, unknown> => ({
    item_id: item.item_id,
    sku: item.sku,
    url: item.url,
    unit: item.unit,
    lock: 0,
    visibility: item.visibility,
    name: item.name,
    pos: item.pos,
    summary: item.summary,
    details: item.details,
    unlimited: item.unlimited ? 1 : 0,
    video: { id: item.video?.id ?? '', start: item.video?.start ?? 0 },
    image: Object.fromEntries(
      item.images.map((image, index) => {
        const src = imageUrl(image.src, config);
        return [
          String(index + 1),
          {
            date: 0,
            title: image.title ?? false,
            src,
            'src@2x': image.src2x ? imageUrl(image.src2x, config) : src,
            url: src,
            url_medium: src,
            url_small: src,
            ...(image.width && image.height ? { width: image.width, height: image.height } : {}),
          },
        ];
      }),
    ),
    category_id: item.category_id,
    category: item.category_name ?? '',
    stock: item.stock,
    type: 'I',
    status: 'A',
    product_group_type: item.package ? 'P' : '',
    len: '',
    meta: '{}',
    rules: rulesText(item),
    rated: 0,
    param: paramDefinitions(item, config),
  }),
);

/**
 * `item.rules` as the API 3.0 service's sample items carry it: a JSON string with each parameter's bounds
 * (`MIN`, `MAX`, as strings) and the fixed rules (`start_time` and `end_time` of an hourly item), which integrations read
 * an item's parameters from.
 */
function rulesText(item: StoredItem): string {
  return JSON.stringify({
    param: Object.fromEntries(
      Object.entries(item.params).map(([id, param]) => [
        id,
        { MIN: String(param.min), MAX: String(param.max) },
      ]),
    ),
    // An hourly item's closing time beside its opening one, so a client can offer its hours as slots.
    fixed:
      item.unit === 'H'
        ? { start_time: item.hours?.open ?? '', end_time: item.hours?.close ?? '' }
        : { start_time: '' },
  });
}

/**
 * `presentItem`'s JSON, kept with it: an unrated list sends every item the caller sees on each request,
 * and serializing them anew was most of its CPU (docs/performance.md).
 */
export const presentItemJson = keptFor(
  new WeakMap(),
  (item, config): RawJson => new RawJson(JSON.stringify(presentItem(item, config))),
);

function amounts(price: Record<string, number>, decimals: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id in price) out[id] = formatAmount(price[id] ?? 0, decimals);
  return out;
}

/** Groups slot rates by local date: a date's price covers all its slots (hours), its stock is its tightest slot. */
function ratesByDate(rated: RatedItem): Map<Ymd, { rate: SlotRate; count: number }> {
  const byDate = new Map<Ymd, { rate: SlotRate; count: number }>();
  // A day or a night is one slot of its own date: nothing to add up.
  if (rated.span?.unit !== 'H') {
    for (const { slot, rate } of rated.slots) byDate.set(slot.date, { rate, count: 1 });
    return byDate;
  }
  for (const { slot, rate } of rated.slots) {
    const seen = byDate.get(slot.date);
    if (!seen) {
      byDate.set(slot.date, { rate: { ...rate, price: { ...rate.price } }, count: 1 });
      continue;
    }
    for (const [id, amount] of Object.entries(rate.price))
      seen.rate.price[id] = (seen.rate.price[id] ?? 0) + amount;
    seen.rate.subTotal += rate.subTotal;
    if (rate.stock.A < seen.rate.stock.A) seen.rate.stock = rate.stock;
    if (rate.status !== 'A') seen.rate.status = rate.status;
    seen.count += 1;
  }
  return byDate;
}

const statusTitle = (rated: RatedItem): string =>
  rated.status === 'AVAILABLE'
    ? `${rated.available} Available`
    : rated.status === 'SOLDOUT'
      ? 'Sold out'
      : 'Unavailable';

/**
 * The rated wire fields of an item: `param`, `rate` (status, available, slip, summary, sub_total,
 * discount, total, event, dates, and `times` for hourly items) and the span facts.
 */
export function presentRated(
  item: StoredItem,
  rated: RatedItem,
  context: { config: StoredConfig; slip?: string },
): Record<string, unknown> {
  const { config } = context;
  const currency = currencyOf(config);
  const { decimals } = currency;
  const span = rated.span;
  const first = rated.slots[0]?.rate.price ?? {};
  const spanDesc = span ? unitCount(item.unit, rated.slots.length) : null;
  const errors = [...rated.errors, ...(rated.discountError ? [rated.discountError] : [])];

  const dates: Record<Ymd, unknown> = {};
  for (const [date, { rate }] of ratesByDate(rated)) {
    dates[date] = {
      status: rate.status,
      price: amounts(rate.price, decimals),
      dow: String(rate.dow),
      stock: rate.stock,
      rate: rate.rate,
      sub_total: formatAmount(rate.subTotal, decimals),
    };
  }
  const times =
    item.unit === 'H'
      ? Object.fromEntries(
          rated.slots.map(({ slot, rate }) => [
            slot.label ?? slot.key,
            {
              status: rate.status,
              price: amounts(rate.price, decimals),
              stock: rate.stock,
              sub_total: formatAmount(rate.subTotal, decimals),
            },
          ]),
        )
      : null;

  const paramView: Record<string, unknown> = {};
  const paramPrices: Record<string, string> = {};
  for (const [id, definition] of Object.entries(paramDefinitions(item, config))) {
    paramView[id] = {
      ...definition,
      price: formatAmount(first[id] ?? 0, decimals),
      qty: rated.quantities[id] ?? 0,
    };
    paramPrices[id] = formatDisplay(first[id] ?? 0, currency);
  }
  const total = formatDisplay(rated.total, currency);

  const rate: Record<string, unknown> = {
    status: rated.status,
    available: rated.available,
    ...(context.slip ? { slip: context.slip } : {}),
    ...(errors.length ? { error: joinReasons(errors) } : {}),
    summary: {
      title: statusTitle(rated),
      details: `<p>${escapeHtml(item.name)}${spanDesc ? `, ${escapeHtml(spanDesc)}` : ''}</p>`,
      price: {
        total,
        title: spanDesc ? `${total} for ${spanDesc}` : total,
        unit: `per ${unitNoun(item.unit)}`,
        param: paramPrices,
      },
      span_desc: spanDesc,
      date: span
        ? describeDates(
            span.start,
            item.unit === 'N' ? (rated.slots.at(-1)?.slot.date ?? span.start) : span.end,
          )
        : '',
    },
    sub_total: formatAmount(rated.subTotal, decimals),
    discount: formatAmount(rated.discount, decimals),
    total: formatAmount(rated.total, decimals),
    event: rated.events.map((event) =>
      Object.fromEntries(
        Object.entries(event).map(([id, entry]) => [
          id,
          { amount: formatAmount(entry.amount, decimals), days: entry.days },
        ]),
      ),
    ),
    start_date: span?.start ?? '',
    end_date: span?.end ?? '',
    dates,
  };
  if (times) rate.times = times;

  return {
    ...presentItem(item, config),
    rated: 1,
    meta: {},
    len: spanDesc ?? '',
    param: paramView,
    qty: rated.units,
    times: times ? Object.keys(times) : null,
    times_days: null,
    rate,
    days: item.unit === 'H' ? (span ? 1 : 0) : rated.slots.length,
    discount: rated.discountCode ? formatAmount(rated.discount, decimals) : null,
    discount_id: rated.discountCode ?? null,
    gprice: total,
    local_start_date: span ? toLocalDate(span.start) : '',
    local_end_date: span ? toLocalDate(span.end) : '',
    package: item.package
      ? {
          items: Object.fromEntries(
            rated.parts.map((part) => [
              String(part.itemId),
              {
                item_id: part.itemId,
                name: part.name,
                qty: part.qty,
                optional: part.optional ? 1 : 0,
                included: part.included ? 1 : 0,
                sub_total: formatAmount(part.subTotal, decimals),
                available: part.available,
              },
            ]),
          ),
        }
      : null,
  };
}

/** The `query` object and `request` echo of a rated response (reference §2.1). */
export function ratedEcho(rated: NonNullable<ItemQuery['rated']>) {
  const end = rated.end ?? rated.start;
  return {
    query: {
      start_date: rated.start,
      end_date: end,
      discount_code: rated.discountCode ?? false,
      giftcert_code: rated.giftcertCode ?? false,
      exclude: false,
      param: rated.requestedParams,
      local_start_date: toLocalDate(rated.start),
      local_end_date: toLocalDate(end),
    },
    request: { start_date: rated.start, end_date: end, param: rated.requestedParams },
  };
}
