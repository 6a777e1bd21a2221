import { describe, expect, it } from 'vitest';
import type { StoredConfig, StoredItem } from '#lib/config/model.ts';
import type { AccountGrant } from '#lib/config/tenant-schema.ts';
import { applyAlters, readAlter } from '#lib/sessions/alter.ts';
import { addLines, type LineContext, sessionActorOf } from '#lib/sessions/lines.ts';
import type { StoredSession } from '#lib/sessions/repository.ts';
import type { SlipPayload } from '#lib/slip/codec.ts';
import { NOW } from '#test/support/rating.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// The cart's pure rules, without DynamoDB (issue 11, point 4).
const tenant = makeTenant(
  makeTenantJson({
    settings: { booking_code_prefix: 'TEST', hold_minutes: 15, max_session_minutes: 60 },
    items: [
      makeItem({ item_id: 1, stock: 10 }),
      makeItem({ item_id: 2, sku: 'desk', stock: 3, visibility: 'S' }),
    ],
  }),
);
const config = { ...tenant, updated_at: 0 } as unknown as StoredConfig;
const all = tenant.items as StoredItem[];
const customer: LineContext = {
  config,
  now: NOW,
  actor: sessionActorOf({ kind: 'customer' }, '203.0.113.1'),
};
const staffCaller = {
  kind: 'staff',
  accountId: 1,
  credentialKey: 'bk_desk',
  credentialAccountId: 1,
} as const;
const partnerCaller = (grants: AccountGrant[]) =>
  ({
    ...staffCaller,
    accountId: 2,
    credentialAccountId: 2,
    partnerId: 2,
    partnerOnly: true,
    grants,
  }) as const;
const payload = (itemId: number, start: string): SlipPayload =>
  ({
    tenant: 'test',
    itemId,
    start,
    end: start,
    params: { qty: 1 },
    expiresAt: Math.floor(NOW / 1000) + 3600,
  }) as SlipPayload;
const empty: StoredSession = {
  id: 'session-0000000000000',
  status: 'open',
  version: 0,
  created_at: NOW,
  updated_at: NOW,
  expires_at: 0,
  next_line: 1,
  lines: {},
  holds: {},
};

const withLine = (ctx: LineContext = customer) =>
  addLines(ctx, { session: empty, all, slips: ['slip-a'], payloads: [payload(1, '20270110')] }).next;

describe('cart lines', () => {
  it('turns a SLIP into a held line that expires hold_minutes later, and a repeat into nothing', () => {
    const session = withLine();
    expect(session.lines['1']).toMatchObject({ item_id: 1, qty: 1, holds_per_qty: { '1|20270110': 1 } });
    expect(session.holds).toEqual({ '1|20270110': 1 });
    expect(session.expires_at).toBe(Math.floor(NOW / 1000) + 900);
    expect(session.first_held_at).toBe(NOW);
    const stored = { ...session, version: 1 };
    const again = addLines(customer, {
      session: stored,
      all,
      slips: ['slip-a'],
      payloads: [payload(1, '20270110')],
    });
    expect(again.next).toBe(stored);
  });

  it('refuses a staff item to a customer and lets staff add it', () => {
    const add = (ctx: LineContext) =>
      addLines(ctx, { session: empty, all, slips: ['slip-s'], payloads: [payload(2, '20270110')] });
    expect(() => add(customer)).toThrow(expect.objectContaining({ code: 'invalid_slip' }));
    expect(add({ ...customer, actor: sessionActorOf(staffCaller, '203.0.113.1') }).next.holds).toEqual({
      '2|20270110': 1,
    });
  });

  it('refuses a staff item to a partner unless its account is granted staff_items', () => {
    const add = (grants: AccountGrant[]) =>
      addLines(
        { ...customer, actor: sessionActorOf(partnerCaller(grants), '203.0.113.1') },
        { session: empty, all, slips: ['slip-s'], payloads: [payload(2, '20270110')] },
      );
    expect(() => add(['rules_override', 'no_hold_budget'])).toThrow(
      expect.objectContaining({
        code: 'invalid_slip',
        data: expect.objectContaining({ reason: 'staff_only' }),
      }),
    );
    expect(add(['staff_items']).next.holds).toEqual({ '2|20270110': 1 });
  });

  it('budgets customers by address, a partner by its credential unless granted no_hold_budget, staff never', () => {
    expect(sessionActorOf({ kind: 'customer' }, '203.0.113.1').client).toBe('203.0.113.1');
    expect(sessionActorOf(partnerCaller([]), '203.0.113.1').client).toBe('credential:bk_desk');
    expect(sessionActorOf(partnerCaller(['no_hold_budget']), '203.0.113.1').client).toBeUndefined();
    expect(sessionActorOf(staffCaller, '203.0.113.1').client).toBeUndefined();
    // Staff acting on behalf of a partner keep staff's privileges.
    expect(sessionActorOf({ ...staffCaller, accountId: 2, partnerId: 2 }, '203.0.113.1')).toEqual({
      staffItems: true,
      rulesOverride: true,
    });
  });

  it.each([
    ['the same quantity', '1', false],
    ['a new quantity', '3', true],
    ['remove', 'remove', true],
    ['0', '0', true],
  ])('alters with %s (changes something: %s)', (_, value, changes) => {
    const session = { ...withLine(), version: 1 };
    const later = { ...customer, now: NOW + 300_000 };
    const { next } = applyAlters(later, { session, all, changes: [readAlter('1', value)] });
    expect(next !== session).toBe(changes);
    if (changes) expect(next.expires_at).toBe(Math.floor((NOW + 300_000) / 1000) + 900);
  });

  it('never extends a hold past max_session_minutes after the first hold', () => {
    const session = { ...withLine(), version: 1 };
    const late = { ...customer, now: NOW + 55 * 60_000 };
    const { next } = applyAlters(late, { session, all, changes: [readAlter('1', '2')] });
    expect(next.expires_at).toBe(Math.floor(NOW / 1000) + 3600);
  });

  it('reads alter keys: line ids, part ids and SLIPs; anything else is a 400', () => {
    expect(readAlter('1', '2')).toEqual({ lineId: '1', value: 2 });
    expect(readAlter('2.1', 'OPTIN')).toEqual({ lineId: '2.1', value: 'optin' });
    expect(readAlter('s1.k.payload.sig', 'remove')).toEqual({
      lineId: 's1.k.payload.sig',
      value: 'remove',
      bySlip: true,
    });
    expect(() => readAlter('line-one', '2')).toThrow(expect.objectContaining({ code: 'validation_error' }));
    expect(() => readAlter('1', '100')).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });
});
