import type { PaymentOptions } from '#lib/bookings/index.ts';
import { validationError } from '#lib/http/errors.ts';
import type { ApiRequest } from '#lib/http/group-handler.ts';
import { API_PREFIX } from '#lib/http/routes.ts';
import type { ProviderSource } from '#lib/payments/index.ts';

// Where a guest who pays at booking is sent back to (issue 43, docs/payments.md): the page that asked, named by
// `return_url` when it is on one of the tenant's `cors_origins` or on this service, else the booking page. Both
// addresses carry a random `return_key`, stored with them on the attempt: the cancel address cannot name the
// checkout, and a booking's code alone is no proof, so the booking page shows a booking to that key only.

/**
 * `return_url` checked: an http(s) address on one of the tenant's origins or this service's own; none given,
 * the tenant's booking page (the service's own site is its public URL without the API prefix).
 */
function checkedReturnUrl(request: ApiRequest, returnUrl: string | undefined): string {
  const { apiUrl } = request;
  const site = apiUrl.endsWith(API_PREFIX) ? apiUrl.slice(0, -API_PREFIX.length) : apiUrl;
  if (returnUrl === undefined) return `${site}/book`;
  const url = URL.canParse(returnUrl) && new URL(returnUrl);
  const allowed = new Set([new URL(site).origin, ...request.config.settings.cors_origins]);
  if (!url || !/^https?:$/.test(url.protocol) || !allowed.has(url.origin) || url.username || url.password)
    throw validationError({
      return_url: "an http(s) address on one of the tenant's cors_origins or this service",
    });
  url.hash = '';
  return url.toString();
}

/**
 * How a customer's create takes payment: none when the tenant takes none (the provider is not even loaded);
 * otherwise the provider (undefined when the function has none configured) and the return addresses, which
 * carry the booking's code, its return key and, after paying, the checkout's id.
 */
export async function paymentOptionsFor(
  request: ApiRequest,
  source: ProviderSource | undefined,
  returnUrl: string | undefined,
): Promise<PaymentOptions | undefined> {
  const back = checkedReturnUrl(request, returnUrl);
  if ((request.config.settings.payment?.take ?? 'none') === 'none' || request.caller.kind !== 'customer')
    return undefined;
  const query = `${back.includes('?') ? '&' : '?'}booking={code}&return_key=${crypto.randomUUID()}`;
  return {
    provider: await source?.(),
    returnUrl: `${back}${query}&checkout={checkout_id}`,
    cancelUrl: `${back}${query}&payment=cancelled`,
  };
}
