// The bookings context's public entry: what other contexts, the functions and the CLIs use of it.
export { addNote, checkInOrOut, setBookmark } from './actions.ts';
export type { BookingContext } from './booking.ts';
export { accountIdOf, findBooking, isInactive, statusName } from './booking.ts';
export type { CancellationQuote, CancellationSnapshot, QuoteInput } from './cancellation.ts';
export {
  cutoffOf,
  deadlineOf,
  feeOf,
  quoteBookingCancellation,
  quoteCancellation,
  resolveCancellation,
  startOfLines,
  tierAt,
  tiersOf,
} from './cancellation.ts';
export type { CancellationTerms } from './cancellation-terms.ts';
export { cancellationOfLines, cancellationTermsFor, itemPoliciesOf } from './cancellation-terms.ts';
export type { CancellationWordsOptions } from './cancellation-words.ts';
export { cancellationWords } from './cancellation-words.ts';
export { createBooking } from './create.ts';
export type { VisibleCustomer } from './customer.ts';
export { findCustomer } from './customer.ts';
export { bookingSnapshotOf } from './events.ts';
export { fieldsFor, unknownFormFields } from './form.ts';
export type { GuestContext } from './guest.ts';
export { openGuestBooking, rotateBookingToken } from './guest.ts';
export type { CancelActor, GuestCancelQuote, GuestCancelRecord } from './guest-cancel.ts';
export { cancelForGuest, guestCancelOf, guestCancelQuote, shownQuote } from './guest-cancel.ts';
export type { ChangeRequest, GuestChangeQuote } from './guest-change.ts';
export type { ChangeOutcome, GuestChangeRecord } from './guest-change-apply.ts';
export { changeForGuest, quoteGuestChange } from './guest-change-apply.ts';
export { IdempotencyKeyError } from './idempotency-key-error.ts';
export { runOnceOrReplay } from './idempotency-store.ts';
export type { ListQuery } from './list.ts';
export { listBookings, listNotes } from './list.ts';
export type { TimeRange } from './list-repository.ts';
export { findBookingsHolding, listBookingsEndingFrom } from './list-repository.ts';
export type { ApplyOutcome } from './payment-apply.ts';
export { applyProviderPayment, closeProviderCheckout } from './payment-apply.ts';
export type { CaptureRunReport } from './payment-capture.ts';
export { captureScheduledPayments } from './payment-capture.ts';
export { lapseUnpaidPayments } from './payment-lapse.ts';
export type { AttemptStatus, PaymentOptions, StoredPaymentAttempt } from './payment-records.ts';
export type { StaffPaymentContext, StaffPaymentInput } from './payment-staff.ts';
export { capturePayment, refundPayment } from './payment-staff.ts';
export type { BookingRecord, StoredBooking } from './repository.ts';
export { changeStatus } from './status.ts';
export { bookedAmounts, cartAmounts, sumAmounts } from './totals.ts';
export { voidUnpaidBookings } from './unpaid.ts';
