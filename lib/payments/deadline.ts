import { PaymentProviderError } from './errors.ts';
import type { PaymentProvider } from './port.ts';

// A provider whose calls end in time (review of issue 43): a scheduled job that calls the provider for each of
// many records (the sweeper's lapse) must end within its function's timeout whatever the provider does. Each
// call gets at most `callMs` and never more than the time left before `endBy`; a call with no answer by then
// is `unavailable`, and the provider is not asked again by this wrapper (one hang is enough to know), so the
// job goes on without it and ends in time.

/** How long the wrapper lets one call run, and until when any call may run at all. */
export interface CallLimits {
  /** The most one call may take, in milliseconds. */
  callMs: number;
  /** When every call must have ended, in milliseconds of `clock`. */
  endBy: number;
  /** The clock `endBy` is read on (default `Date.now`). */
  clock?: () => number;
}

/**
 * The provider with each call limited to `callMs` and to the time left before `endBy`; after a call that
 * found no answer in time, every further call is `unavailable` at once.
 */
export function withCallLimits(provider: PaymentProvider, limits: CallLimits): PaymentProvider {
  const clock = limits.clock ?? Date.now;
  let silent = false;
  const limited = <T>(call: () => Promise<T>): Promise<T> => {
    const ms = Math.min(limits.callMs, limits.endBy - clock());
    if (silent || ms <= 0)
      return Promise.reject(
        new PaymentProviderError('unavailable', { detail: 'No time left for the provider in this run.' }),
      );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        silent = true;
        reject(new PaymentProviderError('unavailable', { detail: `No answer within ${ms} ms.` }));
      }, ms);
    });
    return Promise.race([Promise.resolve().then(call), late]).finally(() => clearTimeout(timer));
  };
  return {
    name: provider.name,
    minimumCharge: (currency) => provider.minimumCharge(currency),
    startCheckout: (input) => limited(() => provider.startCheckout(input)),
    readCheckout: (id) => limited(() => provider.readCheckout(id)),
    expireCheckout: (id, input) => limited(() => provider.expireCheckout(id, input)),
    readPayment: (id) => limited(() => provider.readPayment(id)),
    capture: (id, input) => limited(() => provider.capture(id, input)),
    cancel: (id, input) => limited(() => provider.cancel(id, input)),
    refund: (id, input) => limited(() => provider.refund(id, input)),
    listPayments: (options) => provider.listPayments(options),
    readEvent: (rawBody, header, nowSeconds) => provider.readEvent(rawBody, header, nowSeconds),
  };
}
