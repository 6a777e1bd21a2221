import { todayIn } from '../core/dates.ts';
import { getGiftcert } from '../db/giftcert-repository.ts';
import type { BookingContext } from './booking.ts';
import { isPartnerOnly } from './caller.ts';
import { DomainError } from './errors.ts';

const CODE = /^[A-Z0-9_-]{1,32}$/;

/** A gift certificate code as stored: trimmed and in upper case. */
export const normaliseGiftcertCode = (raw: string): string => raw.trim().toUpperCase();

/**
 * The refusal of a gift certificate: customers and a partner's own credential get one answer whether it
 * is unknown, expired or empty (no oracle for guessing codes); staff see which.
 */
const refusal = (ctx: Pick<BookingContext, 'caller'>, code: string, problem: string): DomainError =>
  ctx.caller.kind !== 'staff' || isPartnerOnly(ctx.caller)
    ? new DomainError('validation_error', 'This gift certificate cannot be used', {
        giftcert_code: 'not valid',
      })
    : new DomainError('validation_error', `Gift certificate ${code} ${problem}`, { giftcert_code: problem });

/**
 * How much of a gift certificate a booking of `total` may spend now (at most its balance); refuses an
 * unknown, expired or empty one, and one that leaves nothing to pay.
 */
export async function spendableGiftcert(
  ctx: Pick<BookingContext, 'db' | 'caller' | 'config' | 'now'>,
  options: { code: string; total: number },
): Promise<{ code: string; amount: number }> {
  const { code, total } = options;
  const giftcert = CODE.test(code) ? await getGiftcert(ctx.db, code) : undefined;
  if (!giftcert) throw refusal(ctx, code, 'is not valid');
  if (giftcert.expires && giftcert.expires < todayIn(ctx.config.company.timezone, ctx.now)) {
    throw refusal(ctx, code, 'has expired');
  }
  const amount = Math.min(giftcert.balance, total);
  if (amount <= 0) throw refusal(ctx, code, 'has no balance left');
  return { code, amount };
}

/**
 * Checks a gift certificate code before a booking is attempted: known, not expired and with a balance.
 * Returns the code as stored.
 */
export async function checkGiftcert(ctx: BookingContext, rawCode: string): Promise<string> {
  const code = normaliseGiftcertCode(rawCode);
  await spendableGiftcert(ctx, { code, total: 1 });
  return code;
}
