import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { CallError, type WidgetApi } from './api.ts';
import { clock, timeLeftInWords } from './format.ts';
import type { Session } from './types.ts';

/** What the countdown needs of its element: the cart, the clock it ticks, and what to do at zero. */
export interface HoldClockHost extends ReactiveControllerHost {
  readonly cart: Session | undefined;
  readonly client: WidgetApi | undefined;
  now: number;
  announce(text: string): void;
  /** Shows the cart the API holds (here: a hold the API still knows). */
  showCart(session: Session): void;
  /** The hold ended: the cart is emptied and says so. */
  expire(): void;
}

/**
 * The countdown of the cart's hold, from the session's `expires`: ticks the widget every second, tells
 * screen readers the time left at each of the last five minutes (and every fifth before), and at zero asks
 * the API whether the hold has really ended.
 */
export class HoldClock implements ReactiveController {
  private timer: ReturnType<typeof setInterval> | undefined;
  private announcedMinutes = 0;
  private confirming = false;

  constructor(private readonly host: HoldClockHost) {
    host.addController(this);
  }

  hostConnected(): void {
    if (this.host.cart) this.start();
  }

  hostDisconnected(): void {
    this.stop();
  }

  /** Time left on the hold, in milliseconds. */
  get left(): number {
    const cart = this.host.cart;
    return cart ? cart.expires * 1000 - this.host.now : 0;
  }

  /** Time left on the hold as m:ss. */
  get display(): string {
    return clock(this.left);
  }

  start(): void {
    if (!this.host.cart) return;
    this.announcedMinutes = Math.ceil(this.left / 60_000);
    this.timer ??= setInterval(() => this.tick(), 1000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    this.host.now = Date.now();
    const left = this.left;
    if (left <= 0) {
      void this.confirmExpiry();
      return;
    }
    const minutes = Math.ceil(left / 60_000);
    if (minutes < this.announcedMinutes && (minutes <= 5 || minutes % 5 === 0)) {
      this.announcedMinutes = minutes;
      this.host.announce(`${timeLeftInWords(left)} left before your hold ends.`);
    }
  }

  /** At zero, asks the API (the browser's clock may be off): an expired hold is refused there too. */
  private async confirmExpiry(): Promise<void> {
    const { cart, client } = this.host;
    if (!cart || !client || this.confirming) return;
    this.confirming = true;
    try {
      const session = await client.readSession(cart.id);
      // Still held (the browser's clock runs ahead): show the hold the API knows.
      if (session.expires * 1000 > Date.now()) this.host.showCart(session);
      else this.host.expire();
    } catch (error) {
      if (error instanceof CallError && error.status !== 0 && error.status !== 429 && error.status !== 503)
        this.host.expire();
    } finally {
      this.confirming = false;
    }
  }
}
