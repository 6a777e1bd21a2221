import { formBody, invoke, staffBasic } from './events.ts';
import { book, type PaymentsWorld } from './payments-world.ts';

// Staff's calls of the payment tests of issue 43, item 5 (test/integration/payments-staff*.test.ts): each as
// a world's staff credential unless another is given.

const staffOf = new Map<PaymentsWorld, string>();
export const staff = async (world: PaymentsWorld) => {
  if (!staffOf.has(world)) staffOf.set(world, await staffBasic(world.db));
  return staffOf.get(world) as string;
};

/** A POST of a form; a payment's action goes to the payments function, the rest to bookings. */
export const post = async (world: PaymentsWorld, path: string, fields: Record<string, string>, as?: string) =>
  invoke(path.includes('/payment/') ? world.handlers.payments : world.handlers.bookings, {
    method: 'POST',
    path,
    body: formBody(fields),
    contentType: 'application/x-www-form-urlencoded',
    headers: { authorization: as ?? (await staff(world)) },
  });
/** A GET of the bookings function. */
export const get = async (world: PaymentsWorld, path: string, as?: string) =>
  invoke(world.handlers.bookings, { path, headers: { authorization: as ?? (await staff(world)) } });

/** `update` with `status_id=PAID&set_paid=1`. */
export const setPaid = (world: PaymentsWorld, code: string, as?: string) =>
  post(world, `booking/${code}/update`, { status_id: 'PAID', set_paid: '1' }, as);

/** A booking of `qty` kayaks (40.00 each) that nobody has paid for. */
export async function unpaid(world: PaymentsWorld, qty = 3) {
  const { created } = await book(world, { qty });
  return created as { code: string; booking_id: number; payment_url?: string };
}
