import type { ErrorId } from '../http/errors.ts';

/** A broken business rule, with the stable code that becomes `request.error.id`. */
export class DomainError extends Error {
  readonly code: ErrorId;
  readonly data: Record<string, unknown>;
  /** Cookies the response must set anyway (for example, clearing a lost session's cookie). */
  readonly cookies: string[] = [];

  /** A title other than the error table's default. */
  readonly title?: string;

  constructor(code: ErrorId, details: string, data: Record<string, unknown> = {}, title?: string) {
    super(details);
    if (title) this.title = title;
    this.name = 'DomainError';
    this.code = code;
    this.data = data;
  }
}
