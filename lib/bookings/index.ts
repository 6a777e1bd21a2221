// The bookings context's public entry: what other contexts, the functions and the CLIs use of it.
export { addNote, checkInOrOut, setBookmark } from './actions.ts';
export type { BookingContext } from './booking.ts';
export { accountIdOf, findBooking, isInactive, statusName } from './booking.ts';
export { createBooking } from './create.ts';
export type { VisibleCustomer } from './customer.ts';
export { findCustomer } from './customer.ts';
export { bookingSnapshotOf } from './events.ts';
export { fieldsFor, unknownFormFields } from './form.ts';
export { IdempotencyKeyError } from './idempotency-key-error.ts';
export { runOnceOrReplay } from './idempotency-store.ts';
export type { ListQuery } from './list.ts';
export { listBookings, listNotes } from './list.ts';
export type { TimeRange } from './list-repository.ts';
export { findBookingsHolding, listBookingsEndingFrom } from './list-repository.ts';
export type { BookingRecord, StoredBooking } from './repository.ts';
export { changeStatus } from './status.ts';
export { bookedAmounts, cartAmounts, sumAmounts } from './totals.ts';
export { voidUnpaidBookings } from './unpaid.ts';
