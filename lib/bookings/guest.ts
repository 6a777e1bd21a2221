import { sameSecret } from '../access/index.ts';
import { DomainError } from '../kernel/errors.ts';
import { checkGuess } from '../limits/index.ts';
import { type BookingContext, findBooking } from './booking.ts';
import { changeBooking } from './change.ts';
import { newBookingToken } from './record.ts';
import type { BookingRecord, StoredBooking } from './repository.ts';

// The guest's own booking (issue 44): reached with its code and its token, the one secret the guest holds
// (the invoice link and the manage link carry it), never with a staff credential.

/** What a guest's call needs: where the booking is kept, the tenant's limits, who calls and when. */
export type GuestContext = Pick<BookingContext, 'db' | 'config' | 'requester' | 'now'>;

/** The one answer to an unknown booking, a wrong token and an old one alike: no oracle for guessing. */
const unknownBooking = (reference: string) =>
  new DomainError('not_found', `Booking ${reference} not found`, { booking_id: reference });

/**
 * Opens a booking for the guest who holds its token. The token is compared in constant time; a wrong or
 * old token gets the answer an unknown booking gets, and costs one of the client's hourly guesses
 * (`settings.limits.token_attempts_per_hour`): with them spent, every token, the right one too, is 429
 * `rate_limited` until the hour ends.
 */
export async function openGuestBooking(
  ctx: GuestContext,
  reference: string,
  token: string,
): Promise<BookingRecord> {
  const guess = {
    kind: 'TOKEN' as const,
    client: `client:${ctx.requester}`,
    budget: ctx.config.settings.limits.token_attempts_per_hour,
    now: ctx.now,
    guessed: 'booking links',
  };
  return checkGuess(ctx.db, guess, async () => {
    const record = await findBooking(ctx.db, reference, undefined);
    if (!sameSecret(token, record.booking.token)) throw unknownBooking(reference);
    return record;
  });
}

/**
 * Gives a booking a new token (staff): the links that carried the old one (invoice, manage) stop working
 * at once. The event says that it changed, never what to.
 */
export async function rotateBookingToken(ctx: BookingContext, reference: string): Promise<StoredBooking> {
  return changeBooking(ctx, reference, ({ booking }) => ({
    next: { ...booking, token: newBookingToken() },
    writes: [],
    event: { type: 'booking.token_rotated' },
  }));
}
