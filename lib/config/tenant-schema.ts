import { z } from 'zod';
import { cancellationSchema } from './cancellation-schema.ts';
import {
  bookingParamSchema,
  categorySchema,
  discountSchema,
  giftcertSchema,
  itemSchema,
  taxSchema,
} from './catalog-schema.ts';
import { channelSchema, MAX_CHANNELS } from './channel-schema.ts';
import { deploymentSchema } from './deployment-schema.ts';
import { paramId, positiveId, text } from './schema-parts.ts';
import { settingsSchema } from './settings-schema.ts';
import { webhookSchema } from './webhook-schema.ts';

/** The default booking status set of the interface (§3); CANCELLED is reserved and always exists. */
const DEFAULT_STATUSES = [
  { status_id: 'PEND', name: 'Pending' },
  { status_id: 'HOLD', name: 'On hold' },
  { status_id: 'PART', name: 'Partially paid' },
  { status_id: 'PAID', name: 'Paid' },
  { status_id: 'WAIT', name: 'Waiting' },
  { status_id: 'STOP', name: 'Stopped' },
  { status_id: 'VOID', name: 'Void' },
];

const isTimeZone = (value: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

const companySchema = z.strictObject({
  account_id: positiveId,
  host_id: text(253).min(1),
  name: text(200).min(1),
  url: text(2000).default(''),
  plan_id: z.number().int().nonnegative().default(1),
  email: z.email(),
  phone: text(50).default(''),
  address: text(500).default(''),
  city: text(200).default(''),
  postal_zip: text(20).default(''),
  region: text(200).default(''),
  region_id: text(20).default(''),
  country_id: z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 country code'),
  timezone: z.string().refine(isTimeZone, 'an IANA time zone such as "America/Toronto"'),
  date_format: text(40).default('m/d/Y'),
  time_format: text(40).default('g:ia'),
});

const localeSchema = z.strictObject({
  id: z.string().regex(/^[a-z]{2}(_[A-Z]{2})?$/, 'a locale such as "en_CA"'),
  lang: z.string().regex(/^[a-z]{2}$/, 'an ISO 639-1 language code'),
  currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 currency code'),
  currency_symbol: text(8).min(1),
  decimals: z.number().int().min(0).max(4).default(2),
});

const statusSchema = z.strictObject({
  status_id: z.string().regex(/^[A-Z]{2,12}$/, '2 to 12 upper case letters'),
  name: text(100).min(1),
});

const formAudienceSchema = z.strictObject({
  form: z.boolean().default(true),
  required: z.boolean().default(false),
  invoice: z.boolean().default(true),
});

const formFieldSchema = z.strictObject({
  field_id: paramId,
  lbl: text(200).min(1),
  type: z.enum(['text', 'textarea', 'select', 'checkbox', 'radio', 'p']),
  mask: z.enum(['email']).optional(),
  options: z.record(z.string().max(64), text(200)).optional(),
  value: text(2000).default(''),
  max_length: z.number().int().positive().max(3000).default(500),
  customer: formAudienceSchema.default({ form: true, required: false, invoice: true }),
  staff: formAudienceSchema.default({ form: true, required: false, invoice: true }),
});

/**
 * Staff privileges a partner's account may be granted (staff have them all, partners none by default):
 * `rules_override` rates with `rules=soft|off`, `staff_items` lists, rates and books staff-only (`S`)
 * items, `no_hold_budget` lifts the hold budgets its credentials are held to.
 */
const ACCOUNT_GRANTS = ['rules_override', 'staff_items', 'no_hold_budget'] as const;

/** One staff privilege a partner's account may be granted. */
export type AccountGrant = (typeof ACCOUNT_GRANTS)[number];

const accountSchema = z.strictObject({
  account_id: positiveId,
  first_name: text(100).min(1),
  last_name: text(100).default(''),
  email: z.email(),
  mobile_phone: text(50).default(''),
  nickname: text(100).default(''),
  login_id: z.string().regex(/^[a-z0-9._-]{2,64}$/, 'lower case letters, digits, ., - and _'),
  enabled: z.boolean().default(true),
  /** A partner (an agent or reseller): its bookings are attributed to it, and it sees only those. */
  partner: z.boolean().default(false),
  /** Staff privileges granted to a partner (see ACCOUNT_GRANTS); staff accounts have them all. */
  grants: z.array(z.enum(ACCOUNT_GRANTS)).max(ACCOUNT_GRANTS.length).default([]),
});

const duplicates = <T>(values: readonly T[]): T[] =>
  values.filter((value, index) => values.indexOf(value) !== index);

/** The tenant file: one business's company, settings, catalogue, prices, form and staff accounts. */
export const tenantSchema = z
  .strictObject({
    $schema: z.string().optional(),
    tenant: z.string().regex(/^[a-z][a-z0-9-]{1,39}$/, 'lower case letters, digits and -'),
    company: companySchema,
    locale: localeSchema,
    settings: settingsSchema,
    params: z.record(paramId, bookingParamSchema),
    categories: z.array(categorySchema).max(500),
    items: z.array(itemSchema).min(1).max(2000),
    discounts: z.array(discountSchema).max(1000).default([]),
    giftcerts: z.array(giftcertSchema).max(10_000).default([]),
    taxes: z.array(taxSchema).max(20).default([]),
    statuses: z.array(statusSchema).min(1).max(30).default(DEFAULT_STATUSES),
    form: z.array(formFieldSchema).min(2).max(100),
    policy: z
      .strictObject({
        body: text(20_000).default(''),
        tos_required: z.boolean().default(false),
        /** The business's full terms, linked from the booking page (`/book`) beside the policy. */
        terms_url: z
          .url({ protocol: /^https?$/ })
          .max(2000)
          .optional(),
        /** The cancellation policy of every item without its own (issue 44); none: no guest cancels online. */
        cancellation: cancellationSchema.optional(),
      })
      .default({ body: '', tos_required: false }),
    accounts: z.array(accountSchema).min(1).max(500),
    webhooks: z.array(webhookSchema).max(10).default([]),
    channels: z.array(channelSchema).max(MAX_CHANNELS).default([]),
    deployment: deploymentSchema,
  })
  .superRefine((tenant, ctx) => {
    const problem = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    const itemIds = tenant.items.map((item) => item.item_id);
    const categoryIds = new Set(tenant.categories.map((category) => category.category_id));
    const itemsById = new Map(tenant.items.map((item) => [item.item_id, item]));

    for (const id of duplicates(itemIds)) problem(['items'], `item_id ${id} appears more than once`);
    for (const sku of duplicates(tenant.items.map((item) => item.sku))) {
      problem(['items'], `sku "${sku}" appears more than once`);
    }
    for (const id of duplicates(tenant.categories.map((category) => category.category_id))) {
      problem(['categories'], `category_id ${id} appears more than once`);
    }
    for (const id of duplicates(tenant.accounts.map((account) => account.account_id))) {
      problem(['accounts'], `account_id ${id} appears more than once`);
    }
    for (const login of duplicates(tenant.accounts.map((account) => account.login_id))) {
      problem(['accounts'], `login_id "${login}" appears more than once`);
    }
    for (const id of duplicates(tenant.statuses.map((status) => status.status_id))) {
      problem(['statuses'], `status_id ${id} appears more than once`);
    }
    for (const code of duplicates(tenant.discounts.map((discount) => discount.code))) {
      problem(['discounts'], `discount code ${code} appears more than once`);
    }
    for (const code of duplicates(tenant.giftcerts.map((giftcert) => giftcert.code))) {
      problem(['giftcerts'], `gift certificate code ${code} appears more than once`);
    }
    for (const id of duplicates(tenant.taxes.map((tax) => tax.tax_id))) {
      problem(['taxes'], `tax_id ${id} appears more than once`);
    }
    for (const id of duplicates(tenant.webhooks.map((webhook) => webhook.id))) {
      problem(['webhooks'], `webhook id ${id} appears more than once`);
    }
    for (const id of duplicates(tenant.channels.map((channel) => channel.id))) {
      problem(['channels'], `channel id ${id} appears more than once`);
    }
    tenant.channels.forEach((channel, index) => {
      const item = itemsById.get(channel.item_id);
      if (!item) problem(['channels', index, 'item_id'], `no item ${channel.item_id}`);
      // A package takes its parts' stock and an unlimited item none: a block would have nothing to hold.
      else if (item.package)
        problem(['channels', index, 'item_id'], 'a channel blocks an item, not a package');
      else if (item.unlimited) problem(['channels', index, 'item_id'], 'an unlimited item cannot be blocked');
      // Units no date can hold would make every date the channel lists a conflict.
      else if (channel.units > Math.max(item.stock, ...Object.values(item.stock_overrides)))
        problem(
          ['channels', index, 'units'],
          `${channel.units} units, over the most item ${item.item_id} has on any date`,
        );
    });
    for (const id of duplicates(tenant.form.map((field) => field.field_id))) {
      problem(['form'], `field_id ${id} appears more than once`);
    }

    tenant.statuses.forEach((status, index) => {
      if (status.status_id === 'CANCELLED') {
        problem(['statuses', index, 'status_id'], 'CANCELLED is reserved and always exists');
      }
    });
    if (!tenant.accounts.some((account) => account.enabled)) {
      problem(['accounts'], 'at least one staff account must be enabled');
    }
    tenant.accounts.forEach((account, index) => {
      // Staff have every privilege: grants on a staff account would read as a limit that does not exist.
      if (account.grants.length > 0 && !account.partner) {
        problem(
          ['accounts', index, 'grants'],
          'only a partner account takes grants (staff have every privilege)',
        );
      }
      for (const grant of duplicates(account.grants)) {
        problem(['accounts', index, 'grants'], `${grant} appears more than once`);
      }
    });
    for (const required of ['customer_name', 'customer_email']) {
      const index = tenant.form.findIndex((field) => field.field_id === required);
      if (index < 0) problem(['form'], `the form must have a ${required} field`);
      else if (!tenant.form[index]?.customer.required) {
        problem(['form', index, 'customer', 'required'], `${required} must be required of customers`);
      }
    }
    tenant.form.forEach((field, index) => {
      if ((field.type === 'select' || field.type === 'radio') && !field.options) {
        problem(['form', index, 'options'], `a ${field.type} field needs options`);
      }
    });

    tenant.items.forEach((item, index) => {
      const at = (...rest: PropertyKey[]) => ['items', index, ...rest];
      if (!categoryIds.has(item.category_id)) {
        problem(at('category_id'), `no category ${item.category_id}`);
      }
      for (const id of Object.keys(item.params)) {
        if (!(id in tenant.params)) problem(at('params', id), `no booking parameter "${id}" in params`);
        const param = item.params[id];
        if (param && param.min > param.max) problem(at('params', id, 'min'), 'min is above max');
      }
      if (item.unit === 'H' && !item.hours) problem(at('hours'), 'an hourly item needs opening hours');
      if (item.unit !== 'H' && item.hours) problem(at('hours'), 'only hourly items have hours');
      if (item.hours && item.hours.open >= item.hours.close)
        problem(at('hours'), 'open must be before close');
      const { min_len: minLen, max_len: maxLen } = item.rules;
      if (minLen !== undefined && maxLen !== undefined && minLen > maxLen) {
        problem(at('rules', 'min_len'), 'min_len is above max_len');
      }
      item.rates.forEach((rate, rateIndex) => {
        if (rate.start_date && rate.end_date && rate.start_date > rate.end_date) {
          problem(at('rates', rateIndex, 'end_date'), 'end_date is before start_date');
        }
        for (const id of Object.keys(rate.price.param)) {
          if (!(id in item.params))
            problem(at('rates', rateIndex, 'price', 'param', id), `item has no "${id}"`);
        }
      });
      item.package?.items.forEach((part, partIndex) => {
        const sub = itemsById.get(part.item_id);
        if (!sub) problem(at('package', 'items', partIndex, 'item_id'), `no item ${part.item_id}`);
        else if (sub.item_id === item.item_id) {
          problem(at('package', 'items', partIndex, 'item_id'), 'a package cannot contain itself');
        } else if (sub.package) {
          problem(at('package', 'items', partIndex, 'item_id'), 'a package cannot contain a package');
        } else if (sub.unit !== item.unit) {
          problem(
            at('package', 'items', partIndex, 'item_id'),
            `item ${sub.item_id} is not sold by the same unit`,
          );
        }
      });
      if (item.package && !item.package.items.some((part) => !part.optional)) {
        problem(at('package', 'items'), 'a package needs at least one required item');
      }
    });

    tenant.discounts.forEach((discount, index) => {
      if (discount.type === 'percent' && Number(discount.value) > 100) {
        problem(['discounts', index, 'value'], 'a percentage is at most 100');
      }
      if (discount.start_date && discount.end_date && discount.start_date > discount.end_date) {
        problem(['discounts', index, 'end_date'], 'end_date is before start_date');
      }
      discount.item_ids?.forEach((id, idIndex) => {
        if (!itemsById.has(id)) problem(['discounts', index, 'item_ids', idIndex], `no item ${id}`);
      });
    });
    tenant.taxes.forEach((tax, index) => {
      tax.item_ids?.forEach((id, idIndex) => {
        if (!itemsById.has(id)) problem(['taxes', index, 'item_ids', idIndex], `no item ${id}`);
      });
    });
  });

/** A validated tenant file, with every default filled in. */
export type Tenant = z.infer<typeof tenantSchema>;
export type TenantItem = Tenant['items'][number];
export type TenantCategory = Tenant['categories'][number];
export type TenantAccount = Tenant['accounts'][number];
export type TenantWebhook = Tenant['webhooks'][number];
export type TenantChannel = Tenant['channels'][number];

/** One problem of a tenant file, located by its JSON path. */
export interface TenantProblem {
  path: string;
  message: string;
}

/** The outcome of checking a tenant file: the tenant, or every problem found. */
export type TenantParseResult = { ok: true; tenant: Tenant } | { ok: false; problems: TenantProblem[] };

const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : `${out}${out ? '.' : ''}${String(key)}`),
    '',
  ) || '(root)';

/** Validates raw tenant JSON and lists every problem by path. */
export function parseTenant(raw: unknown): TenantParseResult {
  const result = tenantSchema.safeParse(raw, { reportInput: false });
  if (result.success) return { ok: true, tenant: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })),
  };
}

/** The tenant schema as JSON Schema, for editors and for the repository copy. */
export function tenantJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(tenantSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
}
