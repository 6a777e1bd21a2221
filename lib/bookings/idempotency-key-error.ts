// Apart from idempotency-store.ts, which loads Powertools Idempotency: every API function maps this
// error to its answer (lib/http/respond.ts), and only the bookings function needs the utility itself.

/** Why a key could not be used: still claimed by a running request, or used for a different request. */
export class IdempotencyKeyError extends Error {
  readonly code: 'in_progress' | 'idempotency_mismatch';
  readonly key: string;

  constructor(code: 'in_progress' | 'idempotency_mismatch', options: { key: string; cause: unknown }) {
    super(
      code === 'in_progress'
        ? 'A request with this Idempotency-Key is still being processed'
        : 'This Idempotency-Key was used for a different request',
      options,
    );
    this.name = 'IdempotencyKeyError';
    this.code = code;
    this.key = options.key;
  }
}
