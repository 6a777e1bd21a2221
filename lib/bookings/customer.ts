import { type Caller, isPartnerOnly } from '../access/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import { canSee } from './booking.ts';
import { getCustomer, getCustomerIdByEmail, type StoredCustomer } from './customer-repository.ts';
import { listAllBookingsOfCustomer } from './list-repository.ts';
import type { StoredBooking } from './repository.ts';

/** A customer with the bookings a caller may see and the booking its details are shown from. */
export interface VisibleCustomer {
  customer: StoredCustomer;
  bookings: StoredBooking[];
  /**
   * The booking whose form gives the customer's details (`customer_name` …), if any: for staff the newest
   * one entered with a credential, for a partner its own newest one.
   */
  detailsFrom: StoredBooking | undefined;
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
 * The booking whose form gives a customer's details to a caller. Anyone can type any email into the
 * public form, so a customer's create never names the customer: staff see the details of the newest
 * booking entered with a credential (staff's or a partner's), a partner's own credential those of its
 * own newest booking, never another's; with none, only the email is known.
 */
function detailsSource(caller: Caller, visible: StoredBooking[]): StoredBooking | undefined {
  if (isPartnerOnly(caller)) return newest(visible);
  return newest(visible.filter((booking) => (booking.entered_by ?? 0) > 0));
}

/**
 * A customer, by id or by email (exact, any case), with the bookings the caller may see; a partner's own
 * credential sees a customer only through a booking attributed to it (otherwise undefined: the same as
 * an unknown customer, so there is no oracle). The details shown are a booking's, never stored ones: see
 * `detailsSource`.
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
  // A partner learns nothing of the customer before its own bookings: not since when it has been one.
  const since = isPartnerOnly(caller)
    ? Math.min(...bookings.map((booking) => booking.created_date))
    : customer.created_date;
  return {
    customer: { ...customer, created_date: since },
    bookings,
    detailsFrom: detailsSource(caller, bookings),
  };
}
