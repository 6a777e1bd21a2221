import { listAllBookingsOfCustomer } from '../db/booking-list-repository.ts';
import type { StoredBooking } from '../db/booking-repository.ts';
import type { Db } from '../db/client.ts';
import { getCustomer, getCustomerIdByEmail, type StoredCustomer } from '../db/customer-repository.ts';
import { canSee } from './booking.ts';
import { type Caller, isPartnerOnly } from './caller.ts';

/** A customer with the bookings a caller may see and the details it may see them with. */
export interface VisibleCustomer {
  customer: StoredCustomer;
  bookings: StoredBooking[];
  /** The customer's form fields (`customer_name` …) as this caller may see them. */
  details: Record<string, string>;
}

/** The newest of some bookings (by creation time, then number), if any. */
const newest = (bookings: StoredBooking[]): StoredBooking | undefined =>
  bookings.reduce<StoredBooking | undefined>(
    (best, booking) =>
      !best ||
      booking.created_date > best.created_date ||
      (booking.created_date === best.created_date && booking.booking_id > best.booking_id)
        ? booking
        : best,
    undefined,
  );

/**
 * The customer's details for a caller: a partner's own credential sees them only as entered in its own
 * newest booking, never the stored record, which another booking (a guest's) may have filled.
 */
function detailsFor(
  caller: Caller,
  customer: StoredCustomer,
  visible: StoredBooking[],
): Record<string, string> {
  if (isPartnerOnly(caller)) return newest(visible)?.form ?? {};
  return customer.fields;
}

/**
 * A customer, by id or by email (exact, any case), with the bookings the caller may see; a partner's own
 * credential sees a customer only through a booking attributed to it (otherwise undefined: the same as
 * an unknown customer, so there is no oracle), and only with what its own bookings entered.
 */
export async function findCustomer(
  db: Db,
  options: { caller: Caller; customerId?: number | undefined; email?: string },
): Promise<VisibleCustomer | undefined> {
  const customerId =
    options.email !== undefined ? await getCustomerIdByEmail(db, options.email) : options.customerId;
  const customer = customerId ? await getCustomer(db, customerId) : undefined;
  if (!customer) return undefined;
  const { caller } = options;
  const bookings = (await listAllBookingsOfCustomer(db, customer.customer_id)).filter((booking) =>
    canSee(caller, booking),
  );
  if (isPartnerOnly(caller) && bookings.length === 0) return undefined;
  return { customer, bookings, details: detailsFor(caller, customer, bookings) };
}
