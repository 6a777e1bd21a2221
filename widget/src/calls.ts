import type { ReactiveControllerHost } from 'lit';
import { CallError } from './api.ts';
import { describeFailure } from './failure-words.ts';
import type { Session } from './types.ts';

/** A message for the guest, with the action to try again when one can. */
export interface Notice {
  message: string;
  retry?: () => Promise<void>;
}

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
 * one twice at once (a double click holds one item, not two). A refusal becomes a notice in the API's
 * words (or the widget's, where the API gave none), with a retry where trying again can help (see
 * `describeFailure`); an expired session empties the cart.
 */
export class Calls {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly running = new Set<string>();

  constructor(private readonly host: CallsHost) {}

  run(action: () => Promise<void>, key = 'action'): Promise<boolean> {
    if (this.running.has(key)) return Promise.resolve(false);
    this.running.add(key);
    this.host.pending = true;
    const done = this.queue
      .then(() => this.execute(action))
      .finally(() => {
        this.running.delete(key);
        this.host.pending = this.running.size > 0;
      });
    this.queue = done.catch(() => undefined);
    return done;
  }

  private async execute(action: () => Promise<void>): Promise<boolean> {
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
      const { message, retry } = describeFailure(error);
      const again = () => this.run(action).then(() => undefined);
      const notice: Notice = { message, ...(retry === 'now' ? { retry: again } : {}) };
      host.notice = notice;
      // A cooldown: "Try again" comes once the wait the API named is over (if the notice is still shown).
      const wait = Number(error.fields.retry_after ?? error.retryAfterSeconds ?? 0);
      if (retry === 'later')
        setTimeout(() => {
          if (host.notice === notice) host.notice = { ...notice, retry: again };
        }, wait * 1000);
      await host.updateComplete;
      host.focusPart('notice');
      return false;
    }
  }
}
