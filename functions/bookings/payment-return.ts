import type { PaymentOptions } from '#lib/bookings/index.ts';
import { validationError } from '#lib/http/errors.ts';
import type { ApiRequest } from '#lib/http/group-handler.ts';
import { API_PREFIX } from '#lib/http/routes.ts';
import type { ProviderSource } from '#lib/payments/index.ts';

// Where a guest who pays at booking is sent back to (issue 43, docs/payments.md): the page that asked, named by
// `return_url` when it is on one of the tenant's `cors_origins` or on this service, else the booking page.

/** The page a guest returns to when the create names none: the tenant's booking page. */
const BOOK_PAGE = 'book';

/** The service's own site (the public URL without the API prefix). */
const siteOf = (apiUrl: string): string =>
  apiUrl.endsWith(API_PREFIX) ? apiUrl.slice(0, -API_PREFIX.length) : apiUrl;

/** `return_url` checked: an http(s) address on one of the tenant's origins or this service's own. */
function checkedReturnUrl(request: ApiRequest, returnUrl: string | undefined): string {
  const site = siteOf(request.apiUrl);
  if (returnUrl === undefined) return `${site}/${BOOK_PAGE}`;
  const url = URL.canParse(returnUrl) ? new URL(returnUrl) : undefined;
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
 * carry the booking's code and, after paying, the checkout's id for the page to show what happened.
 */
export async function paymentOptionsFor(
  request: ApiRequest,
  source: ProviderSource | undefined,
  returnUrl: string | undefined,
): Promise<PaymentOptions | undefined> {
  const back = checkedReturnUrl(request, returnUrl);
  if ((request.config.settings.payment?.take ?? 'none') === 'none' || request.caller.kind !== 'customer')
    return undefined;
  const join = back.includes('?') ? '&' : '?';
  return {
    provider: await source?.(),
    returnUrl: `${back}${join}booking={code}&checkout={checkout_id}`,
    cancelUrl: `${back}${join}booking={code}&payment=cancelled`,
  };
}
