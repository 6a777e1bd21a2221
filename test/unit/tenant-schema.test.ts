import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ALERTS,
  DEFAULT_LIMITS,
  DEFAULT_POW,
  DEFAULT_SETTINGS,
  DEFAULT_THROTTLE,
} from '#lib/config/limits.ts';
import { parseTenant, tenantJsonSchema } from '#lib/config/tenant-schema.ts';
import { demoTenantJson, makeItem, makeTenantJson } from '#test/support/tenant.ts';

describe('the tenant file', () => {
  it('accepts the demo tenant and fills in defaults', () => {
    const result = parseTenant(demoTenantJson());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.tenant.statuses.map((status) => status.status_id)).toEqual([
      'PEND',
      'HOLD',
      'PART',
      'PAID',
      'WAIT',
      'STOP',
      'VOID',
    ]);
    expect(result.tenant.settings.hold_minutes).toBe(15);
  });

  it("lets a customer's unpaid booking lapse after 72 hours in the demo and the template, never by default", () => {
    for (const file of ['infra/tenants/demo.json', 'infra/tenants/template.json']) {
      const result = parseTenant(JSON.parse(readFileSync(file, 'utf8')));
      if (!result.ok) throw new Error(`invalid ${file}`);
      expect({ file, hours: result.tenant.settings.void_unpaid_after_hours }).toEqual({ file, hours: 72 });
    }
    // A tenant file that does not say keeps its bookings: voiding a guest's booking is the business's call.
    const bare = parseTenant(makeTenantJson());
    if (!bare.ok) throw new Error('invalid bare tenant');
    expect(bare.tenant.settings.void_unpaid_after_hours).toBe(0);
  });

  it('has what the demo needs: every unit, a stock-1 item, a package with an add-on, rates, codes, taxes', () => {
    const result = parseTenant(demoTenantJson());
    if (!result.ok) throw new Error('invalid demo');
    const { items, discounts, giftcerts, taxes, accounts } = result.tenant;
    expect(new Set(items.map((item) => item.unit))).toEqual(new Set(['D', 'N', 'H']));
    expect(items.some((item) => item.stock === 1 && !item.unlimited)).toBe(true);
    expect(items.some((item) => item.package?.items.some((part) => part.optional))).toBe(true);
    expect(items.some((item) => item.rates.some((rate) => rate.dow))).toBe(true);
    expect(items.some((item) => item.rates.some((rate) => rate.start_date))).toBe(true);
    expect(items.some((item) => Object.values(item.params).some((param) => param.counts_stock))).toBe(true);
    expect(discounts.length).toBeGreaterThan(0);
    expect(giftcerts.length).toBeGreaterThan(0);
    expect(taxes.length).toBeGreaterThan(0);
    expect(accounts).toHaveLength(2);
  });

  it('lists every problem of an invalid file by path', () => {
    const raw = makeTenantJson({
      company: {
        account_id: -1,
        host_id: 'x',
        name: 'X',
        email: 'not-an-email',
        country_id: 'CA',
        timezone: 'Mars/Base',
      },
      items: [makeItem({ unit: 'W' }), makeItem({ item_id: 2, sku: 'bike', stock: -3 })],
    });
    const result = parseTenant(raw);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((problem) => problem.path)).toEqual(
      expect.arrayContaining([
        'company.account_id',
        'company.email',
        'company.timezone',
        'items[0].unit',
        'items[1].stock',
      ]),
    );
  });

  it("refuses a channel's units that no date of its item can hold", () => {
    const withChannel = (units: number, overrides: Record<string, number> = {}) =>
      parseTenant(
        makeTenantJson({
          items: [makeItem({ item_id: 1, stock: 2, stock_overrides: overrides })],
          channels: [
            { id: 'airbnb', item_id: 1, url: 'https://www.airbnb.com/c.ics', name: 'Airbnb', units },
          ],
        }),
      );
    const refused = withChannel(3);
    if (refused.ok) throw new Error('expected problems');
    expect(refused.problems.map((problem) => `${problem.path}: ${problem.message}`)).toEqual([
      'channels[0].units: 3 units, over the most item 1 has on any date',
    ]);
    expect(withChannel(2).ok).toBe(true);
    // A date with more stock than usual can hold them: that date's block is taken, the others conflict.
    expect(withChannel(3, { '20310105': 3 }).ok).toBe(true);
  });

  it('refuses unknown keys, so a typo never passes silently', () => {
    const result = parseTenant(makeTenantJson({ unknown_key: true } as Record<string, unknown>));
    if (result.ok) throw new Error('expected problems');
    const messages = result.problems.map((problem) => `${problem.path}: ${problem.message}`);
    expect(messages.some((message) => message.startsWith('(root)') && message.includes('unknown_key'))).toBe(
      true,
    );
  });

  it('grants a partner account nothing by default, and only known privileges to partners only', () => {
    const accounts = (grants: Record<string, unknown>) => [
      { account_id: 1, first_name: 'Ada', email: 'ada@test.example.com', login_id: 'ada', ...grants },
      { account_id: 2, first_name: 'Tours', email: 't@tours.example.com', login_id: 'tours', partner: true },
    ];
    const plain = parseTenant(makeTenantJson({ accounts: accounts({}) }));
    if (!plain.ok) throw new Error(JSON.stringify(plain.problems));
    expect(plain.tenant.accounts.map((account) => account.grants)).toEqual([[], []]);
    const granted = parseTenant(
      makeTenantJson({
        accounts: [
          ...accounts({}).slice(0, 1),
          { ...accounts({})[1], grants: ['rules_override', 'staff_items', 'no_hold_budget'] },
        ],
      }),
    );
    expect(granted.ok).toBe(true);
    const problemsOf = (raw: Record<string, unknown>) => {
      const result = parseTenant(raw);
      if (result.ok) throw new Error('expected problems');
      return result.problems.map((problem) => problem.path);
    };
    expect(
      problemsOf(
        makeTenantJson({ accounts: [accounts({})[0], { ...accounts({})[1], grants: ['everything'] }] }),
      ),
    ).toEqual(['accounts[1].grants[0]']);
    expect(problemsOf(makeTenantJson({ accounts: accounts({ grants: ['staff_items'] }) }))).toEqual([
      'accounts[0].grants',
    ]);
    expect(
      problemsOf(
        makeTenantJson({
          accounts: [accounts({})[0], { ...accounts({})[1], grants: ['staff_items', 'staff_items'] }],
        }),
      ),
    ).toEqual(['accounts[1].grants']);
  });

  it('reports cross-reference problems once the structure is right', () => {
    const raw = makeTenantJson({
      items: [
        makeItem({ category_id: 9, params: { kids: { price: '1.00' } } }),
        makeItem({ item_id: 1, sku: 'other' }),
        makeItem({ item_id: 3, sku: 'pkg', package: { items: [{ item_id: 3 }, { item_id: 42 }] } }),
      ],
    });
    const result = parseTenant(raw);
    if (result.ok) throw new Error('expected problems');
    expect(result.problems).toEqual(
      expect.arrayContaining([
        { path: 'items', message: 'item_id 1 appears more than once' },
        { path: 'items[0].category_id', message: 'no category 9' },
        { path: 'items[0].params.kids', message: 'no booking parameter "kids" in params' },
        { path: 'items[2].package.items[0].item_id', message: 'a package cannot contain itself' },
        { path: 'items[2].package.items[1].item_id', message: 'no item 42' },
      ]),
    );
  });

  it('refuses a wildcard CORS origin, since the API sends credentials', () => {
    const result = parseTenant(
      makeTenantJson({ settings: { booking_code_prefix: 'TEST', cors_origins: ['*'] } }),
    );
    expect(result.ok).toBe(false);
  });

  it('fills every setting a tenant file leaves out from the one set of defaults (lib/config/limits.ts)', () => {
    const result = parseTenant(makeTenantJson());
    if (!result.ok) throw new Error('expected a tenant');
    expect(result.tenant.settings).toMatchObject({
      ...DEFAULT_SETTINGS,
      throttle: DEFAULT_THROTTLE,
      limits: DEFAULT_LIMITS,
      pow: DEFAULT_POW,
    });
  });

  it('gives a tenant file without alerts every default threshold and no address', () => {
    const result = parseTenant(makeTenantJson());
    if (!result.ok) throw new Error('expected a tenant');
    expect(result.tenant.settings.alerts).toEqual(DEFAULT_ALERTS);
    expect(result.tenant.settings.alerts.email).toBeUndefined();
  });

  it('fills the thresholds an alerts block leaves out, and refuses a bad address or threshold', () => {
    const settings = (alerts: Record<string, unknown>) =>
      makeTenantJson({ settings: { booking_code_prefix: 'TEST', alerts } });
    const result = parseTenant(settings({ email: 'ops@test.example.com', sweeper_lag_seconds: 600 }));
    if (!result.ok) throw new Error('expected a tenant');
    expect(result.tenant.settings.alerts).toEqual({
      ...DEFAULT_ALERTS,
      email: 'ops@test.example.com',
      sweeper_lag_seconds: 600,
    });
    const refused = parseTenant(settings({ email: 'ops', api_5xx_percent: 0, busy: 3 }));
    if (refused.ok) throw new Error('expected problems');
    expect(refused.problems.map((problem) => problem.path)).toEqual(
      expect.arrayContaining(['settings.alerts.email', 'settings.alerts.api_5xx_percent', 'settings.alerts']),
    );
  });

  it('counts IPv6 clients by /64 unless settings.limits.ipv6_prefix says 56 or 48, and nothing else', () => {
    const withPrefix = (ipv6_prefix?: unknown) =>
      parseTenant(
        makeTenantJson({
          settings: { booking_code_prefix: 'TEST', limits: ipv6_prefix === undefined ? {} : { ipv6_prefix } },
        }),
      );
    const fallback = withPrefix();
    expect(fallback.ok && fallback.tenant.settings.limits.ipv6_prefix).toBe(64);
    for (const prefix of [48, 56, 64]) {
      const result = withPrefix(prefix);
      expect(result.ok && result.tenant.settings.limits.ipv6_prefix).toBe(prefix);
    }
    for (const prefix of [32, 60, 128, '56']) expect(withPrefix(prefix).ok).toBe(false);
  });

  it('keeps the JSON Schema in the repository in step with the zod schema', () => {
    const stored = JSON.parse(readFileSync('infra/tenants/tenant.schema.json', 'utf8'));
    expect(stored).toEqual(tenantJsonSchema());
  });
});
