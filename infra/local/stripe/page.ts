import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseForm } from './api.ts';
import { StripeApiError } from './errors.ts';
import type { Ledger } from './ledger.ts';
import { formatMoney, TEST_CARDS } from './objects.ts';
import { attemptPayment, sweepExpired } from './operations.ts';
import type { SessionRecord } from './state.ts';

/** Where the checkout page lives: a session's `url` is `<base>/c/pay/<id>`, as Stripe's hosted page. */
export const PAGE_PATH = /^\/c\/pay\/([A-Za-z0-9_]+)$/;

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** `success_url` with Stripe's `{CHECKOUT_SESSION_ID}` template filled in. */
export const successUrl = (session: SessionRecord) =>
  session.successUrl?.replaceAll('{CHECKOUT_SESSION_ID}', session.id) ?? null;

function render(session: SessionRecord, notice: 'declined' | null): string {
  const money = (amount: number) => escapeHtml(formatMoney(amount, session.currency));
  const lines = session.lineItems
    .map(
      (line) =>
        `<tr><th scope="row">${escapeHtml(line.name)}${line.description ? `<br><small>${escapeHtml(line.description)}</small>` : ''}</th><td>${line.quantity}</td><td>${money(line.unitAmount * line.quantity)}</td></tr>`,
    )
    .join('');
  const back = session.cancelUrl ? `<p><a href="${escapeHtml(session.cancelUrl)}">Back (cancel)</a></p>` : '';
  let body: string;
  if (session.status === 'open') {
    body = `${notice === 'declined' ? '<p role="alert" class="error">Your card was declined. You can try again until this page expires.</p>' : ''}
<form method="post">
  <p>Test card ending ${TEST_CARDS.success.last4} pays; the decline button uses the card ending ${TEST_CARDS.decline.last4}.</p>
  <button type="submit" name="action" value="pay">Pay with test card</button>
  <button type="submit" name="action" value="decline">Decline (card declined)</button>
</form>
${back}
<p><small>Expires at <time datetime="${new Date(session.expiresAt * 1000).toISOString()}">${new Date(session.expiresAt * 1000).toUTCString()}</time>.</small></p>`;
  } else if (session.status === 'complete') {
    const next = successUrl(session);
    body = `<p role="status">This payment is complete.</p>${next ? `<p><a href="${escapeHtml(next)}">Continue</a></p>` : ''}`;
  } else {
    body = `<p role="status">This checkout page has expired; nothing was charged.</p>${back}`;
  }
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay ${money(session.amountTotal)} (Stripe stand-in, test mode)</title>
<style>body{font:1rem/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
table{width:100%;border-collapse:collapse}caption{text-align:left;font-weight:600}th,td{text-align:left;padding:.25rem .75rem .25rem 0}td:last-child,thead th:last-child{text-align:right;padding-right:0}
button{font:inherit;padding:.6rem 1rem;margin:.25rem .5rem .25rem 0;border:2px solid #1a1a1a;border-radius:4px;background:#fff;cursor:pointer}
button[value=pay]{background:#1a1a1a;color:#fff}button:focus-visible,a:focus-visible{outline:3px solid #0a58ca;outline-offset:2px}
.error{color:#a10000;font-weight:600}</style></head>
<body><main>
<h1>Pay ${money(session.amountTotal)}</h1>
<p>Test mode: a local stand-in for Stripe Checkout. No real card is charged.</p>
<table><caption>What you pay for</caption><thead><tr><th scope="col">Item</th><th scope="col">Qty</th><th scope="col">Amount</th></tr></thead>
<tbody>${lines}</tbody><tfoot><tr><th scope="row">Total</th><td></td><td>${money(session.amountTotal)}</td></tr></tfoot></table>
${body}
</main></body></html>`;
}

const html = (response: ServerResponse, status: number, text: string) => {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  response.end(text);
};

/**
 * The hosted checkout page: GET shows it; a POST of `action=pay` pays and redirects to `success_url`,
 * `action=decline` declines and shows the page again with the error (303, so a reload does not post twice).
 */
export function handlePage(
  ledger: Ledger,
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
  id: string,
): void {
  sweepExpired(ledger);
  const session = ledger.state.sessions[id];
  if (!session) {
    ledger.store.save();
    html(
      response,
      404,
      '<!doctype html><html lang="en"><title>Not found</title><main><h1>No such checkout page</h1></main></html>',
    );
    return;
  }
  const url = new URL(request.url ?? '/', 'http://stand-in');
  if (request.method === 'POST') {
    const action = parseForm(body).action;
    if (action !== 'pay' && action !== 'decline') {
      html(response, 400, render(session, null));
      return;
    }
    try {
      attemptPayment(ledger, id, action === 'pay' ? 'success' : 'decline');
    } catch (error) {
      // The session closed meanwhile (paid in another tab, or expired): show it as it is now.
      if (!(error instanceof StripeApiError)) throw error;
    }
    ledger.store.save();
    const next = action === 'pay' && session.status === 'complete' ? successUrl(session) : null;
    const location =
      next ?? `${url.pathname}${action === 'decline' && session.status === 'open' ? '?declined=1' : ''}`;
    response.writeHead(303, { location, 'cache-control': 'no-store' });
    response.end();
    return;
  }
  ledger.store.save();
  html(response, 200, render(session, url.searchParams.get('declined') === '1' ? 'declined' : null));
}
