/**
 * A call of the widget's that the API refused or that never reached it: the HTTP status (0 when there was
 * no answer), the API's error id (or `network`, `challenge_failed`), its words, the fields at fault, and
 * whether the words are the API's own (from its error envelope, written for guests).
 * Not the service's own `ApiError` (lib/http/errors.ts), which is what the API answers.
 */
export class CallError extends Error {
  override readonly name = 'CallError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
    readonly retryAfterSeconds?: number,
    readonly fromEnvelope = false,
  ) {
    super(message);
  }
}
