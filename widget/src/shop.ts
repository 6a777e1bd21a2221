import type { ReactiveControllerHost } from 'lit';
import type { Filters, SearchQuery, WidgetApi } from './api.ts';
import type { Calls } from './calls.ts';
import type { ResultItem, Session } from './types.ts';

/** What holding and changing need of the element: the API, the cart, the results and the calls. */
export interface ShopHost extends ReactiveControllerHost {
  readonly client: WidgetApi | undefined;
  readonly cart: Session | undefined;
  readonly searched: SearchQuery | undefined;
  readonly filters: Filters;
  readonly hours: Map<string, { start: string; end: string }>;
  results: ResultItem[];
  refreshes: number;
  run: Calls['run'];
  showCart(session: Session): void;
  announce(text: string): void;
  focusPart(id: string): void;
}

/** Holds an item (an hourly one for its hours): its SLIP goes into the cart (a new one when there is none). */
export async function addToCart(
  host: ShopHost,
  item: ResultItem,
  hours?: { start: string; end: string },
): Promise<void> {
  const slip = item.rate?.slip;
  const client = host.client;
  if (!slip || !client) return;
  if (hours) host.hours.set(slip, hours);
  const added = await host.run(async () => {
    const session = await client.writeSession({ sessionId: host.cart?.id, slip });
    host.showCart(session);
    host.announce(`${item.name} added to your cart.`);
    await host.updateComplete;
    host.focusPart('cart-heading');
  }, `add:${item.item_id}`);
  if (added) void refreshResults(host);
}

/** Changes a cart line: a quantity, `remove`, or a package part's `optin` / `optout`. */
export async function alterLine(
  host: ShopHost,
  options: { lineId: string; change: string | number; what: string },
): Promise<void> {
  const { lineId, change, what } = options;
  const client = host.client;
  const cart = host.cart;
  if (!client || !cart) return;
  const altered = await host.run(async () => {
    const session = await client.writeSession({ sessionId: cart.id, alter: { [lineId]: change } });
    host.showCart(session);
    host.announce(what);
    if (change === 'remove') {
      await host.updateComplete;
      host.focusPart('cart-heading');
    }
  }, `alter:${lineId}:${change}`);
  // Refused or not, the cart shows what the API holds (the quantity field puts a refused one back itself).
  host.requestUpdate();
  if (altered) void refreshResults(host);
}

/**
 * Re-rates the last search quietly, beside the guest's calls, so what is left matches what the cart now
 * holds; only the latest refresh is shown.
 */
async function refreshResults(host: ShopHost): Promise<void> {
  if (!host.searched || !host.client) return;
  const mine = ++host.refreshes;
  try {
    const found = await host.client.search(host.searched, host.filters);
    if (mine === host.refreshes) host.results = found.items;
  } catch {
    // The cart changed; the list is only a little stale, and the next search refreshes it.
  }
}
