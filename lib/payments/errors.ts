// The port's one error. Its message is ours, never the provider's (which may quote a key, an email or an
// amount in the provider's formatting); the provider's request id is kept for support, and the provider's
// own error stays in `cause` for the log only.

/**
 * - `unavailable`: the provider failed, timed out, could not be reached or asked us to slow down; retry later.
 * - `refused`: the provider refused the request for a reason the domain must see (`reason`); do not retry.
 * - `not_found`: no such object at the provider.
 * - `invalid_signature`: a webhook whose signature or timestamp does not verify.
 * - `misconfigured`: the provider refused our credentials; an operator must fix the key, not the guest.
 */
export type PaymentErrorCode =
  | 'unavailable'
  | 'refused'
  | 'not_found'
  | 'invalid_signature'
  | 'misconfigured';

/**
 * Why a request was refused: more than was authorised or is left to refund, nothing left to refund, the
 * payment is not in a state that allows it, one of our keys reused with other values, or anything else.
 */
export type RefusalReason =
  | 'amount_too_large'
  | 'nothing_to_refund'
  | 'invalid_state'
  | 'key_reused'
  | 'invalid_request';

const MESSAGES: Record<PaymentErrorCode, string> = {
  unavailable: 'The payment provider is unavailable; try again later.',
  refused: 'The payment provider refused the request.',
  not_found: 'The payment provider has no such object.',
  invalid_signature: 'The webhook signature does not verify.',
  misconfigured: 'The payment provider refused our credentials.',
};

/** Marks the port's error, whichever copy of this module made it (below). */
const BRAND = Symbol.for('booking-service.PaymentProviderError');

/**
 * A payment provider's failure in the port's words, with a stable `code` (and `reason` when refused). A
 * Lambda loads the adapter from a file of its own beside its bundle (provider-from-env.ts), which carries
 * its own copy of this class: `instanceof` goes by the mark, so an error of either copy is one of this.
 */
export class PaymentProviderError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && BRAND in value;
  }

  readonly [BRAND] = true;
  readonly code: PaymentErrorCode;
  readonly reason: RefusalReason | undefined;
  /** The provider's id of the failed request, for its support; never a secret. */
  readonly providerRequestId: string | undefined;

  constructor(
    code: PaymentErrorCode,
    options: { reason?: RefusalReason; providerRequestId?: string; cause?: unknown; detail?: string } = {},
  ) {
    const base = MESSAGES[code];
    const reason = options.reason ? ` (${options.reason})` : '';
    super(options.detail ? `${base}${reason} ${options.detail}` : `${base}${reason}`, {
      cause: options.cause,
    });
    this.name = 'PaymentProviderError';
    this.code = code;
    this.reason = options.reason;
    this.providerRequestId = options.providerRequestId;
  }

  /** Whether the same call may succeed later. */
  get retryable(): boolean {
    return this.code === 'unavailable';
  }

  /** What a serialised error shows: never the cause, which is the provider's own. */
  toJSON() {
    return { name: this.name, code: this.code, reason: this.reason, message: this.message };
  }
}
