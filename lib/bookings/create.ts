import type { Caller } from '../access/index.ts';
import { addSlips, endSession, loadOpenSession, sessionActorOf, verifySlips } from '../sessions/index.ts';

import { bookSession, type MadeBooking } from './book-session.ts';
import { type BookingContext, canSee } from './booking.ts';
import { type Audience, validateForm } from './form.ts';
import { checkGiftcert } from './giftcert.ts';
import { ensureCheckout } from './payment-open.ts';
import type { StoredPaymentAttempt } from './payment-records.ts';
import { getBookingRecord, type StoredBooking } from './repository.ts';

/** What `booking/create` is asked. */
export interface CreateBookingInput {
  sessionId?: string;
  slips: string[];
  form: unknown;
  giftcertCode?: string;
  /** A solved proof-of-work challenge for holding `slips` of an item under pressure (ALTCHA payload). */
  altcha?: string;
}

/** A booking just made (or found, when its session was already booked). */
export interface CreatedBooking {
  booking: StoredBooking;
  existing: boolean;
  /** Whether the caller proved it made the booking (`provesCreation`): only then its token, URLs and money. */
  proven: boolean;
  /** The payment attempt it awaits (issue 43), its checkout opened if the provider answered. */
  attempt?: StoredPaymentAttempt;
}

/**
 * Whether the caller of `booking/create` proves it made the booking, and so may see its token, its URLs
 * and its money: the create that made it does. A booked session's id alone is no proof: a repeat (the
 * session already booked) proves it only from staff who may see the booking, or with the booking's
 * customer email in the form (case and surrounding spaces aside); anyone else learns its id, code and
 * status. A repeat with the same `Idempotency-Key` is answered with the first answer, not by this rule.
 */
export function provesCreation(
  caller: Caller,
  created: { booking: StoredBooking; existing: boolean },
  form: unknown,
): boolean {
  if (!created.existing) return true;
  if (caller.kind === 'staff' && canSee(caller, created.booking)) return true;
  const given =
    form !== null && typeof form === 'object' ? (form as Record<string, unknown>).customer_email : undefined;
  const email = created.booking.form.customer_email;
  return typeof given === 'string' && !!email && given.trim().toLowerCase() === email.trim().toLowerCase();
}

/**
 * Books a session in one transaction: the booking with its lines and the session's holds (handed over:
 * counters untouched), its code, a new customer (matched by email; only its id and email are stored), the
 * gift certificate spend, the first event, and the session marked booked. A session already booked
 * returns its booking; concurrent creates of one session make one booking.
 */
export async function createBooking(ctx: BookingContext, input: CreateBookingInput): Promise<CreatedBooking> {
  const made = await makeBooking(ctx, input);
  const proven = provesCreation(ctx.caller, made, input.form);
  if (!proven || !made.booking.payment) return { ...made, proven };
  const attempt = await ensureCheckout(ctx, made.booking, made.attempt);
  // The provider's webhook may have applied the payment already (a guest quicker than this answer).
  const booking =
    attempt && attempt.status !== 'opening' && attempt.status !== 'pending' && attempt.status !== 'failed'
      ? ((await getBookingRecord(ctx.db, made.booking.booking_id))?.booking ?? made.booking)
      : made.booking;
  return { booking, existing: made.existing, proven, ...(attempt ? { attempt } : {}) };
}

/** Validates the form, holds the SLIPs sent with the create if any, and books the session. */
async function makeBooking(ctx: BookingContext, input: CreateBookingInput): Promise<MadeBooking> {
  const audience: Audience = ctx.caller.kind === 'staff' ? 'staff' : 'customer';
  const { values: form } = validateForm(ctx.config, input.form, audience);
  // The gift certificate is checked once, and only when there is something to book: without a session
  // that can be booked, a real code and a made-up one get the same answer.
  let checked: Promise<string> | undefined;
  const rawCode = input.giftcertCode;
  const giftcert = rawCode ? () => (checked ??= checkGiftcert(ctx, rawCode)) : undefined;
  if (!input.slips.length) return bookSession(ctx, { sessionId: input.sessionId, form, giftcert });
  // SLIPs sent with the booking are held first: in the given session, or in a new one.
  const sessionCtx = {
    db: ctx.db,
    config: ctx.config,
    keys: ctx.keys,
    now: ctx.now,
    actor: sessionActorOf(ctx.caller, ctx.requester),
  };
  // Everything that can be checked before holding is checked first, so a refused create holds nothing:
  // the SLIPs, the session they go into, then the gift certificate.
  verifySlips(sessionCtx, input.slips);
  if (input.sessionId) await loadOpenSession(ctx.db, input.sessionId, ctx.now);
  await giftcert?.();
  const held = await addSlips(input.altcha ? { ...sessionCtx, altcha: input.altcha } : sessionCtx, {
    ...(input.sessionId ? { sessionId: input.sessionId } : {}),
    slips: input.slips,
  });
  try {
    return await bookSession(ctx, { sessionId: held.id, form, giftcert });
  } catch (error) {
    // A session made by this call is seen by nobody: let its holds go now rather than at expiry.
    if (!input.sessionId) {
      await endSession({ ...sessionCtx, startsCooldown: false }, held.id).catch(() => undefined);
    }
    throw error;
  }
}
