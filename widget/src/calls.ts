import type { ReactiveControllerHost } from 'lit';
import { CallError } from './api.ts';
import type { Session } from './types.ts';

/** A message for the guest, with the action to try again when one can. */
export interface Notice {
  message: string;
  retry?: () => Promise<void>;
}

/** How a call's refusals read: its own words for some error ids. */
export interface RunOptions {
  messages?: Record<string, string>;
}

/** What the guest sees when a call is refused, by the API's error id (status for gateway answers). */
const MESSAGES: Record<string, string> = {
  rate_limited: 'Too many requests right now.',
  busy: 'Many guests are booking at this moment.',
  unavailable: 'Sorry, that is no longer available for these dates: someone else has just taken it.',
  hold_limit:
    'You are already holding as much as one guest may hold at once, in this cart or others left open. Book or remove something, then try again.',
  network: 'The booking service could not be reached. Check your connection.',
  challenge_failed:
    'Few are left, and this browser could not complete the quick check that holding one now needs.',
  challenge_required: 'Few are left: holding one needs a quick check that did not complete.',
};

/** A hold_limit that ends at a known time: this guest let these dates go unbooked a moment ago. */
const COOLDOWN =
  'You let this go unbooked a moment ago, so it stays open to other guests for a while before you can hold it again.';

/** How long to wait, in words a guest reads at a glance. */
const waitFor = (seconds: number): string =>
  seconds >= 90
    ? ` Please wait about ${Math.ceil(seconds / 60)} minutes and try again.`
    : ` Please wait ${seconds} seconds and try again.`;

/** What the calls need of the element that makes them: where they show their state and their refusals. */
export interface CallsHost extends ReactiveControllerHost {
  pending: boolean;
  notice: Notice | undefined;
  readonly cart: Session | undefined;
  /** The hold ended: the cart is emptied and says so. */
  expire(): void;
  focusPart(id: string): void;
}

/**
 * The guest's calls, one after the other (so no click is lost while a call is out), but never the same
 * one twice at once (a double click holds one item, not two). A refusal becomes a notice in plain words,
 * with a retry where trying again can help (429, 409, 503, a lost connection); an expired session empties
 * the cart.
 */
export class Calls {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly running = new Set<string>();

  constructor(private readonly host: CallsHost) {}

  run(action: () => Promise<void>, key = 'action', options: RunOptions = {}): Promise<boolean> {
    if (this.running.has(key)) return Promise.resolve(false);
    this.running.add(key);
    this.host.pending = true;
    const done = this.queue
      .then(() => this.execute(action, options))
      .finally(() => {
        this.running.delete(key);
        this.host.pending = this.running.size > 0;
      });
    this.queue = done.catch(() => undefined);
    return done;
  }

  private async execute(action: () => Promise<void>, options: RunOptions): Promise<boolean> {
    const { host } = this;
    host.notice = undefined;
    try {
      await action();
      return true;
    } catch (error) {
      if (!(error instanceof CallError)) throw error;
      if (error.code === 'session_expired' || (error.code === 'not_found' && host.cart)) {
        host.expire();
        return false;
      }
      const retryable = [429, 409, 503, 0].includes(error.status);
      const wait = error.retryAfterSeconds ? waitFor(error.retryAfterSeconds) : '';
      const cooling = error.code === 'hold_limit' && error.fields.retry_after !== undefined;
      const message = cooling
        ? COOLDOWN
        : (options.messages?.[error.code] ?? MESSAGES[error.code] ?? error.message);
      host.notice = {
        message: `${message}${wait}`,
        ...(retryable ? { retry: () => this.run(action, 'action', options).then(() => undefined) } : {}),
      };
      await host.updateComplete;
      host.focusPart('notice');
      return false;
    }
  }
}
