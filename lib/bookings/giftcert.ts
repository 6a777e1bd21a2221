import { isPartnerOnly } from '../access/index.ts';
import { todayIn } from '../kernel/dates.ts';
import { DomainError } from '../kernel/errors.ts';
import { checkGuess } from '../limits/index.ts';
import type { BookingContext } from './booking.ts';
import { getGiftcert } from './giftcert-repository.ts';

const CODE = /^[A-Z0-9_-]{1,32}$/;

/** A gift certificate code as stored: trimmed and in upper case. */
const normaliseGiftcertCode = (raw: string): string => raw.trim().toUpperCase();

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
 * Whose budget a refused code is charged to: a customer's client (its address), a partner's own
 * credential; none for staff, who see why a code fails anyway.
 */
const budgetOwner = (ctx: Pick<BookingContext, 'caller' | 'requester'>): string | undefined => {
  if (ctx.caller.kind === 'customer') return `client:${ctx.requester}`;
  return isPartnerOnly(ctx.caller) ? `credential:${ctx.caller.credentialKey}` : undefined;
};

/**
 * Checks a gift certificate code before a booking is attempted: known, not expired and with a balance;
 * returns the code as stored. Each check takes an attempt from the client's hourly budget
 * (`settings.limits.giftcert_attempts_per_hour`, kept in DynamoDB), and a good code gives it back, so only
 * refused codes cost. With the budget spent, every code, a good one too, is 429 `rate_limited` until the
 * window ends: a script guessing codes learns nothing more.
 */
export async function checkGiftcert(ctx: BookingContext, rawCode: string): Promise<string> {
  const code = normaliseGiftcertCode(rawCode);
  const client = budgetOwner(ctx);
  const check = async () => (await spendableGiftcert(ctx, { code, total: 1 })).code;
  if (!client) return check();
  const guess = {
    kind: 'GIFTCERT' as const,
    client,
    budget: ctx.config.settings.limits.giftcert_attempts_per_hour,
    now: ctx.now,
    guessed: 'gift certificate codes',
  };
  return checkGuess(ctx.db, guess, check);
}
