import { randomUUID } from 'node:crypto';
import { DomainError } from '../kernel/errors.ts';
import { unixSeconds } from '../kernel/time.ts';
import { accountIdOf, type BookingContext, isInactive } from './booking.ts';
import { changeBooking, plainWrites, settleBudget } from './change.ts';
import { bookmarkAction, putNoteAction, type StoredBooking, type StoredNote } from './repository.ts';

/** The longest note, in characters after trimming. */
const MAX_NOTE_LENGTH = 3000;

const noteOf = (ctx: BookingContext, body: string): StoredNote => ({
  note_id: randomUUID(),
  account_id: accountIdOf(ctx.caller),
  date: new Date(ctx.now).toISOString(),
  body,
  private: 0,
});

/** Checks a booking in (or out): refused for VOID and CANCELLED and when already done; adds a note unless told not to. */
export async function checkInOrOut(
  ctx: BookingContext,
  options: { reference: string; direction: 'in' | 'out'; note: boolean },
): Promise<StoredBooking> {
  return changeBooking(ctx, options.reference, ({ booking }) => {
    const field = options.direction === 'in' ? 'checked_in' : 'checked_out';
    if (isInactive(booking.status_id)) {
      throw new DomainError(
        'invalid_status',
        `A ${booking.status_id} booking cannot be checked ${options.direction}`,
        {
          status_id: booking.status_id,
        },
      );
    }
    if (booking[field]) {
      throw new DomainError('invalid_status', `The booking is already checked ${options.direction}`, {
        [field]: booking[field],
      });
    }
    const nowSeconds = unixSeconds(ctx.now);
    const note = options.note ? noteOf(ctx, `Checked ${options.direction}`) : undefined;
    const { next, settle } = settleBudget(ctx, {
      booking,
      next: { ...booking, [field]: nowSeconds },
      releasesStock: false,
    });
    return {
      next,
      settle,
      writes: plainWrites(note ? [putNoteAction(ctx.db, booking, note, nowSeconds)] : []),
      event: { type: `booking.checked_${options.direction}`, data: { note: options.note } },
      added: { notes: note ? [note] : [] },
    };
  });
}

/** Sets or clears the acting account's bookmark. */
export async function setBookmark(
  ctx: BookingContext,
  options: { reference: string; mark: boolean },
): Promise<StoredBooking> {
  return changeBooking(ctx, options.reference, ({ booking }) => ({
    next: booking,
    writes: plainWrites([
      bookmarkAction(ctx.db, {
        bookingId: booking.booking_id,
        accountId: accountIdOf(ctx.caller),
        mark: options.mark,
        at: ctx.now,
      }),
    ]),
    event: { type: options.mark ? 'booking.bookmarked' : 'booking.unbookmarked' },
  }));
}

/** Adds a note (1 to 3000 characters after trimming) under the acting account. */
export async function addNote(
  ctx: BookingContext,
  options: { reference: string; body: string },
): Promise<StoredBooking> {
  const body = options.body.trim();
  if (body.length === 0 || body.length > MAX_NOTE_LENGTH) {
    throw new DomainError('validation_error', `A note is 1 to ${MAX_NOTE_LENGTH} characters`, {
      body: `1 to ${MAX_NOTE_LENGTH} characters`,
    });
  }
  return changeBooking(ctx, options.reference, ({ booking }) => {
    const note = noteOf(ctx, body);
    return {
      next: booking,
      writes: plainWrites([putNoteAction(ctx.db, booking, note, unixSeconds(ctx.now))]),
      event: { type: 'booking.note_added', data: { length: body.length } },
      added: { notes: [note] },
    };
  });
}
