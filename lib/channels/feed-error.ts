/** A feed that cannot be read; `reason` is short and safe to show staff (it quotes no more than a TZID). */
export class FeedParseError extends Error {
  readonly code = 'invalid_feed';
  readonly reason: string;

  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'FeedParseError';
    this.reason = reason;
  }
}
