import { z } from 'zod';
import { cancellationSchema } from './cancellation-schema.ts';
import { dow, hhmm, money, paramId, positiveId, text, ymd } from './schema-parts.ts';

/** A booking parameter of the tenant (adults, children…), with its label. */
export const bookingParamSchema = z.strictObject({
  lbl: text(100).min(1),
  group: z.number().int().nonnegative().default(0),
});

/** A category of items. */
export const categorySchema = z.strictObject({
  category_id: positiveId,
  name: text(200).min(1),
  description: text(5000).default(''),
  pos: z.number().int().default(0),
  image: text(2000).default(''),
});

/** An item's price and limits for one booking parameter, and whether it counts toward stock. */
const itemParamSchema = z.strictObject({
  price: money.default('0.00'),
  counts_stock: z.boolean().default(false),
  def: z.number().int().min(0).max(999).default(0),
  req: z.boolean().default(false),
  min: z.number().int().min(0).max(999).default(0),
  max: z.number().int().min(0).max(999).default(99),
  range: z.boolean().default(false),
  hide: z.boolean().default(false),
});

/** A seasonal rate: prices over a date range and days of the week. */
export const rateSchema = z.strictObject({
  name: text(100).min(1),
  start_date: ymd.optional(),
  end_date: ymd.optional(),
  dow: z.array(dow).max(7).optional(),
  price: z.strictObject({
    item: money.optional(),
    param: z.record(paramId, money).default({}),
  }),
});

/** An item's booking rules: length, lead time, advance limit and closed days. */
const rulesSchema = z.strictObject({
  min_len: z.number().int().positive().optional(),
  max_len: z.number().int().positive().optional(),
  lead_days: z.number().int().nonnegative().optional(),
  advance_days: z.number().int().positive().optional(),
  closed_dates: z.array(ymd).max(1000).default([]),
  closed_dow: z.array(dow).max(7).default([]),
});

/**
 * An item image: a URL, or a path on this service (`/widget/demo-cabin.webp`, served beside the widget),
 * which the API answers as a URL on its public address. `width` and `height` (of `src`, in pixels) let a
 * page reserve the picture's space before it loads.
 */
const imageSchema = z.strictObject({
  src: text(2000).min(1),
  src2x: text(2000).optional(),
  title: text(200).optional(),
  width: z.number().int().positive().max(20_000).optional(),
  height: z.number().int().positive().max(20_000).optional(),
});

/** An item of the catalogue: its stock, prices, rates, rules and package contents. */
export const itemSchema = z.strictObject({
  item_id: positiveId,
  sku: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, - and _'),
  name: text(200).min(1),
  unit: z.enum(['D', 'N', 'H']),
  enabled: z.boolean().default(true),
  visibility: z.enum(['*', 'S', 'P']).default('*'),
  category_id: positiveId,
  pos: z.number().int().default(0),
  summary: text(5000).default(''),
  details: text(20000).default(''),
  url: text(2000).default(''),
  video: z.strictObject({ id: text(2000), start: z.number().int().nonnegative().default(0) }).optional(),
  images: z.array(imageSchema).max(20).default([]),
  stock: z.number().int().nonnegative().max(100_000),
  unlimited: z.boolean().default(false),
  stock_overrides: z.record(ymd, z.number().int().nonnegative().max(100_000)).default({}),
  hours: z.strictObject({ open: hhmm, close: hhmm }).optional(),
  params: z.record(paramId, itemParamSchema).default({}),
  price: z.strictObject({ item: money.optional() }).default({}),
  rates: z.array(rateSchema).max(100).default([]),
  rules: rulesSchema.default({ closed_dates: [], closed_dow: [] }),
  package: z
    .strictObject({
      items: z
        .array(
          z.strictObject({
            item_id: positiveId,
            qty: z.number().int().positive().max(100).default(1),
            optional: z.boolean().default(false),
          }),
        )
        .min(1)
        .max(20),
    })
    .optional(),
  pow: z
    .strictObject({
      below_share: z
        .number()
        .positive()
        .max(1)
        .describe(
          "A hold by a guest that would leave less than this share of the item-date's stock free needs a solved proof-of-work challenge (ALTCHA).",
        ),
    })
    .optional()
    .describe('The proof-of-work gate for a high-demand item (default: none).'),
  cancellation: cancellationSchema
    .optional()
    .describe("This item's cancellation policy: replaces the tenant's `policy.cancellation` for its lines."),
});

/** A discount code: percent or amount, date window, item filter. */
export const discountSchema = z.strictObject({
  code: z.string().regex(/^[A-Z0-9_-]{2,32}$/, 'upper case letters, digits, - and _'),
  name: text(200).min(1),
  type: z.enum(['percent', 'amount']),
  value: money,
  start_date: ymd.optional(),
  end_date: ymd.optional(),
  item_ids: z.array(positiveId).max(1000).optional(),
});

/** A gift certificate and its initial balance. */
export const giftcertSchema = z.strictObject({
  code: z.string().regex(/^[A-Z0-9_-]{4,32}$/, 'upper case letters, digits, - and _'),
  amount: money,
  expires: ymd.optional(),
});

/** A tax, exclusive (added) or inclusive (reported), on all or some items. */
export const taxSchema = z.strictObject({
  tax_id: paramId,
  name: text(100).min(1),
  rate: z.number().min(0).max(100),
  inclusive: z.boolean().default(false),
  item_ids: z.array(positiveId).max(1000).optional(),
});
