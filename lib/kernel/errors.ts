/** The stable codes of broken business rules; `lib/http` maps each to its HTTP status in one table. */
export type DomainErrorCode =
  | 'validation_error'
  | 'invalid_slip'
  | 'not_found'
  | 'unavailable'
  | 'hold_limit'
  | 'challenge_required'
  | 'session_expired'
  | 'session_empty'
  | 'invalid_status'
  | 'nothing_due'
  | 'rate_limited';

/** A broken business rule, with the stable code that becomes `request.error.id`. */
export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly data: Record<string, unknown>;

  /** A title other than the error table's default. */
  readonly title?: string;

  constructor(code: DomainErrorCode, details: string, data: Record<string, unknown> = {}, title?: string) {
    super(details);
    if (title) this.title = title;
    this.name = 'DomainError';
    this.code = code;
    this.data = data;
  }
}

/** A client over one of its budgets (`rate_limited`): the budget, and the seconds until it is renewed. */
export class BudgetSpentError extends DomainError {
  readonly limit: number;
  readonly retryAfter: number;

  constructor(details: string, options: { limit: number; retryAfter: number }) {
    super('rate_limited', details, { limit: options.limit, retry_after: options.retryAfter });
    this.name = 'BudgetSpentError';
    this.limit = options.limit;
    this.retryAfter = options.retryAfter;
  }
}

/** The words of `session_expired`, wherever a cart is found ended, booked, swept or timed out. */
export const SESSION_EXPIRED = 'Your cart has expired or was closed; add your choices again';

/** The words of a `not_found` cart: an unknown id (or one swept away long ago). */
export const NO_SUCH_SESSION = 'This cart no longer exists; add your choices again';

/** The words of `unavailable` for an item withdrawn (or made staff-only) since it was rated. */
export const NO_LONGER_OFFERED = 'This item is no longer offered; choose another';
