import { freshAddress, invoke } from './events.ts';
import { book, checkoutIdOf, day, type PaymentsWorld, settled } from './payments-world.ts';

// The guest's cancel of issue 44 as the tests call it (test/integration/guest-*.test.ts): the quote, then
// the cancel holding to it, each from an address of its own unless one is given, on a payments world.

/** The tiers the guest-cancel tests sell under: everything back two weeks ahead, half two days ahead. */
export const TWO_TIERS = [
  { before: { days: 14 }, percent: 100 },
  { before: { days: 2 }, percent: 50 },
];

/** GET booking/{code}/manage/cancel with the booking's token: the quote. */
export const guestQuote = (on: PaymentsWorld, code: string, token: string, sourceIp = freshAddress()) =>
  invoke(on.handlers.payments, {
    path: `booking/${code}/manage/cancel`,
    query: `token=${encodeURIComponent(token)}`,
    sourceIp,
  });

/** POST booking/{code}/manage/cancel with the booking's token and the quote's id: the cancel. */
export const guestConfirm = (
  on: PaymentsWorld,
  code: string,
  token: string,
  quoteId: string,
  sourceIp = freshAddress(),
) =>
  invoke(on.handlers.payments, {
    method: 'POST',
    path: `booking/${code}/manage/cancel`,
    query: `token=${encodeURIComponent(token)}&quote=${encodeURIComponent(quoteId)}`,
    sourceIp,
  });

/** A booking of `qty` kayaks (40.00 a day each) on `date` (30 days ahead), paid in full at the stand-in. */
export async function paidBooking(on: PaymentsWorld, options: { qty?: number; date?: string } = {}) {
  const { created } = await book(on, { qty: options.qty ?? 3, date: options.date ?? day(30) });
  on.standIn.controls.pay(checkoutIdOf(created.payment_url as string));
  await settled(on);
  return created as { code: string; booking_id: number; token: string };
}
