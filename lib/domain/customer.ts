import { listAllBookingsOfCustomer } from '../db/booking-list-repository.ts';
import type { StoredBooking } from '../db/booking-repository.ts';
import type { Db } from '../db/client.ts';
import { getCustomer, getCustomerIdByEmail, type StoredCustomer } from '../db/customer-repository.ts';
import { canSee } from './booking.ts';
import type { Caller } from './caller.ts';

/** A customer with the bookings a caller may see. */
export interface VisibleCustomer {
  customer: StoredCustomer;
  bookings: StoredBooking[];
}

/**
 * A customer, by id or by email (exact, any case), with the bookings the caller may see; a partner's own
 * credential sees a customer only through a booking attributed to it (otherwise undefined: the same as
 * an unknown customer, so there is no oracle).
 */
export async function findCustomer(
  db: Db,
  options: { caller: Caller; customerId?: number | undefined; email?: string },
): Promise<VisibleCustomer | undefined> {
  const customerId =
    options.email !== undefined ? await getCustomerIdByEmail(db, options.email) : options.customerId;
  const customer = customerId ? await getCustomer(db, customerId) : undefined;
  if (!customer) return undefined;
  const bookings = (await listAllBookingsOfCustomer(db, customer.customer_id)).filter((booking) =>
    canSee(options.caller, booking),
  );
  const { caller } = options;
  if (caller.kind === 'staff' && caller.partnerOnly && bookings.length === 0) return undefined;
  return { customer, bookings };
}
