import { describe, expect, it } from 'vitest';
import {
  type Payment,
  type PaymentProvider,
  PaymentProviderError,
  withCallLimits,
} from '#lib/payments/index.ts';

// Review of issue 43 (finding 5): the provider calls of a sweep end in time. Each call gets at most `callMs` and
// never runs past `endBy`; after one call found no answer, the provider is not asked again by the wrapper.

const payment = { providerPaymentId: 'pi_1', state: 'captured' } as Payment;

/** A provider whose readPayment answers or hangs as told, counting the calls that reached it. */
function fakeProvider(answer: 'answer' | 'hang') {
  const calls: string[] = [];
  const provider = {
    name: 'fake',
    readPayment: (id: string) => {
      calls.push(`readPayment ${id}`);
      return answer === 'answer' ? Promise.resolve(payment) : new Promise<Payment>(() => undefined);
    },
    readCheckout: (id: string) => {
      calls.push(`readCheckout ${id}`);
      return Promise.resolve({ checkoutId: id });
    },
  } as unknown as PaymentProvider;
  return { provider, calls };
}

const unavailable = (error: unknown) => error instanceof PaymentProviderError && error.code === 'unavailable';

describe('withCallLimits', () => {
  it('passes an answer in time through', async () => {
    const { provider, calls } = fakeProvider('answer');
    const limited = withCallLimits(provider, { callMs: 1000, endBy: Date.now() + 60_000 });
    await expect(limited.readPayment('pi_1')).resolves.toBe(payment);
    expect(limited.name).toBe('fake');
    expect(calls).toEqual(['readPayment pi_1']);
  });

  it('answers unavailable for a call with no answer in time, then asks the provider nothing more', async () => {
    const { provider, calls } = fakeProvider('hang');
    const limited = withCallLimits(provider, { callMs: 20, endBy: Date.now() + 60_000 });
    const hung = await limited.readPayment('pi_1').catch((error: unknown) => error);
    expect(unavailable(hung)).toBe(true);
    const next = await limited.readCheckout('cs_1').catch((error: unknown) => error);
    expect(unavailable(next)).toBe(true);
    expect(calls).toEqual(['readPayment pi_1']);
  });

  it('asks nothing once its end has passed, by the clock it is given', async () => {
    const { provider, calls } = fakeProvider('answer');
    let now = 1_000;
    const limited = withCallLimits(provider, { callMs: 1000, endBy: 2_000, clock: () => now });
    await expect(limited.readCheckout('cs_1')).resolves.toEqual({ checkoutId: 'cs_1' });
    now = 2_000;
    const late = await limited.readCheckout('cs_2').catch((error: unknown) => error);
    expect(unavailable(late)).toBe(true);
    expect(calls).toEqual(['readCheckout cs_1']);
  });
});
