import { describeDates, toLocalDate, type Ymd } from '#lib/core/dates.ts';
import { formatAmount, formatDisplay } from '#lib/core/money.ts';
import type { StoredConfig, StoredItem } from '#lib/db/tenant-repository.ts';
import { describeLength, escapeHtml, unitWord } from '#lib/domain/text.ts';
import type { RatedItem, SlotRate } from '#lib/rating/rate-item.ts';

const currencyOf = (config: StoredConfig) => ({
  symbol: config.locale.currency_symbol,
  decimals: config.locale.decimals,
});

/**
 * An item's booking parameters as the rated item lists them, less the price and the quantity asked: so a
 * client (the widget) can offer the quantities, with their labels and bounds, before any dates are chosen.
 */
const paramDefinitions = (item: StoredItem, config: StoredConfig) =>
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
  );

/** The unrated wire fields of an item (reference §2.2, the wire notes' common extras, its parameters). */
export function presentItem(item: StoredItem, config: StoredConfig): Record<string, unknown> {
  return {
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
      item.images.map((image, index) => [
        String(index + 1),
        {
          date: 0,
          title: image.title ?? false,
          src: image.src,
          'src@2x': image.src2x ?? image.src,
          url: image.src,
          url_medium: image.src,
          url_small: image.src,
        },
      ]),
    ),
    category_id: item.category_id,
    category: item.category_name ?? '',
    stock: item.stock,
    type: 'I',
    status: 'A',
    product_group_type: item.package ? 'P' : '',
    len: '',
    meta: '{}',
    rated: 0,
    param: paramDefinitions(item, config),
  };
}

const amounts = (price: Record<string, number>, decimals: number): Record<string, string> =>
  Object.fromEntries(Object.entries(price).map(([id, amount]) => [id, formatAmount(amount, decimals)]));

/** Groups slot rates by local date: a date's price covers all its slots (hours), its stock is its tightest slot. */
function ratesByDate(rated: RatedItem): Map<Ymd, { rate: SlotRate; count: number }> {
  const byDate = new Map<Ymd, { rate: SlotRate; count: number }>();
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
  const spanDesc = span ? describeLength(item.unit, rated.slots.length) : null;
  const errors = [...rated.errors, ...(rated.discountError ? [rated.discountError] : [])];

  const dates = Object.fromEntries(
    [...ratesByDate(rated).entries()].map(([date, { rate }]) => [
      date,
      {
        status: rate.status,
        price: amounts(rate.price, decimals),
        dow: String(rate.dow),
        stock: rate.stock,
        rate: rate.rate,
        sub_total: formatAmount(rate.subTotal, decimals),
      },
    ]),
  );
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

  const definitions = paramDefinitions(item, config);
  const paramView = Object.fromEntries(
    Object.entries(definitions).map(([id, definition]) => [
      id,
      {
        ...definition,
        price: formatAmount(first[id] ?? 0, decimals),
        qty: rated.quantities[id] ?? 0,
      },
    ]),
  );

  const rate: Record<string, unknown> = {
    status: rated.status,
    available: rated.available,
    ...(context.slip ? { slip: context.slip } : {}),
    ...(errors.length ? { error: errors.join('; ') } : {}),
    summary: {
      title: statusTitle(rated),
      details: `<p>${escapeHtml(item.name)}${spanDesc ? `, ${escapeHtml(spanDesc)}` : ''}</p>`,
      price: {
        total: formatDisplay(rated.total, currency),
        title: spanDesc
          ? `${formatDisplay(rated.total, currency)} for ${spanDesc}`
          : formatDisplay(rated.total, currency),
        unit: `per ${unitWord(item.unit)}`,
        param: Object.fromEntries(
          Object.keys(item.params).map((id) => [id, formatDisplay(first[id] ?? 0, currency)]),
        ),
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
    gprice: formatDisplay(rated.total, currency),
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
