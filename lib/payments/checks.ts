import { PaymentProviderError } from './errors.ts';
import type { StartCheckoutInput } from './port.ts';

// What the port asks of its callers before anything is sent, whatever the provider: a call that breaks
// these is a bug of the caller, refused as `invalid_request` with nothing sent and nothing changed.

const refuse = (detail: string) => new PaymentProviderError('refused', { reason: 'invalid_request', detail });

/** Refuses an amount that is not a whole number of at least `min` (1 unless said). */
export function checkAmount(amount: unknown, name = 'amount', min = 1): void {
  if (!Number.isSafeInteger(amount) || (amount as number) < min)
    throw refuse(`${name} must be a whole number, ${min} or more.`);
}

/** Refuses an empty id: every key the provider sees is derived from one. */
export function checkId(value: unknown, name: string): void {
  if (typeof value !== 'string' || value.trim() === '') throw refuse(`${name} is required.`);
}

/** Refuses a checkout request that is not whole: ids, money, lines that add up, a deadline, addresses. */
export function checkCheckoutInput(input: StartCheckoutInput): void {
  for (const name of ['paymentId', 'bookingId', 'bookingCode', 'tenantId', 'description'] as const)
    checkId(input[name], name);
  checkAmount(input.amount);
  if (typeof input.currency !== 'string' || !/^[A-Za-z]{3}$/.test(input.currency))
    throw refuse('currency must be an ISO 4217 code.');
  if (!Number.isSafeInteger(input.expiresAt)) throw refuse('expiresAt must be Unix seconds.');
  if (input.capture !== 'automatic' && input.capture !== 'manual')
    throw refuse('capture must be automatic or manual.');
  for (const name of ['returnUrl', 'cancelUrl'] as const)
    if (!URL.canParse(input[name] ?? '')) throw refuse(`${name} must be an absolute URL.`);
  if (input.lines === undefined) return;
  if (input.lines.length === 0) throw refuse('lines, when given, must not be empty.');
  let total = 0;
  for (const [index, line] of input.lines.entries()) {
    checkId(line.name, `lines[${index}].name`);
    checkAmount(line.unitAmount, `lines[${index}].unitAmount`, 0);
    checkAmount(line.quantity, `lines[${index}].quantity`);
    total += line.unitAmount * line.quantity;
  }
  if (total !== input.amount) throw refuse(`The lines total ${total}, not the amount ${input.amount}.`);
}
