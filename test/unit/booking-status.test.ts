import { describe, expect, it } from 'vitest';
import { changeStatus, checkStatusChange, type StatusChange } from '#lib/bookings/status.ts';
import type { StoredConfig } from '#lib/config/model.ts';
import { DomainError } from '#lib/kernel/errors.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { NOW } from '#test/support/rating.ts';
import { makeTenant, makeTenantJson } from '#test/support/tenant.ts';

// Which status changes a booking may take (issue 29, item 3): the rule of the domain, whoever calls it.

const configOf = (statuses?: { status_id: string; name: string }[]): StoredConfig =>
  ({ ...makeTenant(makeTenantJson(statuses ? { statuses } : {})), updated_at: 0 }) as unknown as StoredConfig;
const config = configOf();
const withoutVoid = configOf([
  { status_id: 'PEND', name: 'Pending' },
  { status_id: 'PAID', name: 'Paid' },
]);

/** The field a refused change names, or 'allowed'. */
const verdict = (change: StatusChange, on: StoredConfig = config): string => {
  try {
    checkStatusChange(on, change);
    return 'allowed';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return `${error.code}: ${Object.keys(error.data).join(', ')}`;
  }
};

describe('the status change rule', () => {
  it.each<[string, StatusChange, string]>([
    ['a status of the tenant set', { statusId: 'HOLD' }, 'allowed'],
    ['CANCELLED, which every tenant has', { statusId: 'CANCELLED' }, 'allowed'],
    ['VOID of the default set', { statusId: 'VOID', notify: false }, 'allowed'],
    ['a status the tenant does not have', { statusId: 'LOST' }, 'validation_error: status_id'],
    ['a status in lower case', { statusId: 'paid' }, 'validation_error: status_id'],
    ['the empty status', { statusId: '' }, 'validation_error: status_id'],
    ['set_paid=1 with PAID', { statusId: 'PAID', setPaid: true }, 'allowed'],
    ['set_paid=0, even with PAID', { statusId: 'PAID', setPaid: false }, 'validation_error: set_paid'],
    ['set_paid=1 with another status', { statusId: 'PEND', setPaid: true }, 'validation_error: set_paid'],
    [
      'set_paid=1 with PAID and notify',
      { statusId: 'PAID', setPaid: true, notify: true },
      'validation_error: set_paid',
    ],
    [
      'an unknown status before a wrong set_paid',
      { statusId: 'LOST', setPaid: true },
      'validation_error: status_id',
    ],
  ])('%s', (_name, change, expected) => {
    expect(verdict(change)).toBe(expected);
  });

  it('names the statuses a client may choose from', () => {
    expect(() => checkStatusChange(config, { statusId: 'LOST' })).toThrow(
      expect.objectContaining({
        message: 'Invalid parameter: status_id',
        data: { status_id: 'one of PEND, HOLD, PART, PAID, WAIT, STOP, VOID, CANCELLED' },
      }),
    );
  });

  it('holds staff to the tenant set, not the service voiding an unpaid booking', () => {
    expect(verdict({ statusId: 'VOID' }, withoutVoid)).toBe('validation_error: status_id');
    expect(verdict({ statusId: 'VOID', reason: 'unpaid' }, withoutVoid)).toBe('allowed');
  });
});

describe('changeStatus', () => {
  // A table that fails every call: a change the rule refuses must be refused before the booking is read.
  const unreachable = new Proxy({} as Db, {
    get: () => {
      throw new Error('the table was read');
    },
  });
  const ctx = {
    db: unreachable,
    config,
    keys: [],
    caller: { kind: 'staff', accountId: 1, credentialKey: 'bk_desk', credentialAccountId: 1 } as const,
    requester: '',
    now: NOW,
  };

  it.each<StatusChange>([{ statusId: 'LOST' }, { statusId: 'PEND', setPaid: true }])(
    'refuses %o by the rule before reading the booking',
    async (change) => {
      await expect(changeStatus(ctx, { reference: '1', ...change })).rejects.toMatchObject({
        name: 'DomainError',
        code: 'validation_error',
      });
    },
  );
});
