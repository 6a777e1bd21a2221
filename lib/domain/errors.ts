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
  | 'nothing_due';

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
