import { describe, expect, it } from 'vitest';
import type { Caller } from '#lib/access/caller.ts';
import { provesCreation } from '#lib/bookings/create.ts';
import type { StoredBooking } from '#lib/bookings/repository.ts';

// Who may see a booking's token, URLs and money when `booking/create` answers (issue 29, item 3): the
// create that made it, or a repeat that proves it made it; a booked session's id alone is no proof.

const booking = (overrides: Partial<StoredBooking> = {}) =>
  ({
    booking_id: 7,
    code: 'TEST-AB23CD',
    form: { customer_email: 'Ada@Example.com' },
    ...overrides,
  }) as StoredBooking;
const customer: Caller = { kind: 'customer' };
const staff: Caller = { kind: 'staff', accountId: 1, credentialKey: 'bk_desk', credentialAccountId: 1 };
const partner = (partnerId: number): Caller => ({
  kind: 'staff',
  accountId: partnerId,
  credentialKey: 'bk_partner',
  credentialAccountId: partnerId,
  partnerId,
  partnerOnly: true,
});

describe('what a booking/create caller may see', () => {
  it.each<[string, Caller, { existing: boolean; partner_id?: number }, unknown, boolean]>([
    ['the create that made it, whatever its form says', customer, { existing: false }, {}, true],
    ['a repeat with no form', customer, { existing: true }, undefined, false],
    [
      'a repeat with another email',
      customer,
      { existing: true },
      { customer_email: 'eve@example.com' },
      false,
    ],
    [
      'a repeat with the same email',
      customer,
      { existing: true },
      { customer_email: 'ada@example.com' },
      true,
    ],
    [
      'a repeat with the same email in other case and spaces',
      customer,
      { existing: true },
      { customer_email: '  ADA@EXAMPLE.COM ' },
      true,
    ],
    [
      'a repeat with the email not as text',
      customer,
      { existing: true },
      { customer_email: ['ada@example.com'] },
      false,
    ],
    [
      'a repeat with the email at the top, not in the form',
      customer,
      { existing: true },
      'ada@example.com',
      false,
    ],
    ['staff repeating it', staff, { existing: true }, {}, true],
    ['the partner it is attributed to', partner(5), { existing: true, partner_id: 5 }, {}, true],
    ['another partner', partner(6), { existing: true, partner_id: 5 }, {}, false],
    [
      'another partner with the same email',
      partner(6),
      { existing: true, partner_id: 5 },
      { customer_email: 'ada@example.com' },
      true,
    ],
  ])('%s', (_name, caller, created, form, expected) => {
    const made = booking(created.partner_id !== undefined ? { partner_id: created.partner_id } : {});
    expect(provesCreation(caller, { booking: made, existing: created.existing }, form)).toBe(expected);
  });

  it('never matches an empty email on a booking without one', () => {
    const made = booking({ form: {} });
    expect(provesCreation(customer, { booking: made, existing: true }, { customer_email: '' })).toBe(false);
    expect(
      provesCreation(customer, { booking: made, existing: true }, { customer_email: 'ada@example.com' }),
    ).toBe(false);
  });
});
