import type { ReactiveControllerHost } from 'lit';
import { CallError, type Filters, type SearchQuery, type sessionStore, type WidgetApi } from './api.ts';
import type { Availability } from './availability.ts';
import type { Calls } from './calls.ts';
import { type LinkDates, linkedDates } from './deep-link.ts';
import { isoDate } from './format.ts';
import type { CatalogueItem, Locale, ParamDefinition, Session } from './types.ts';

/** What opening the widget needs of its element: the calendar, the catalogue it fills, the search. */
export interface OpeningHost extends ReactiveControllerHost {
  readonly availability: Availability;
  readonly filters: Filters;
  readonly params: Array<[string, ParamDefinition]>;
  readonly query: SearchQuery;
  catalogue: CatalogueItem[];
  locale: Locale | undefined;
  ready: boolean;
  unmatched: boolean;
  run: Calls['run'];
  showCart(session: Session): void;
  search(options: { focus: boolean }): Promise<void>;
}

/** The filters a page's attributes set: a category, some items (comma-separated ids). */
export function filtersOf(attributes: { item?: string; category?: string }): Filters {
  const items = (attributes.item ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return {
    ...(attributes.category ? { category: attributes.category } : {}),
    ...(items.length ? { items } : {}),
  };
}

/** The booking parameters some items use (the first item to use one gives its default; MAX the largest). */
export function paramsOf(items: CatalogueItem[]): Array<[string, ParamDefinition]> {
  const seen = new Map<string, ParamDefinition>();
  for (const item of items)
    for (const [id, param] of Object.entries(item.param ?? {}))
      if (!param.hide) {
        const known = seen.get(id);
        seen.set(id, known ? { ...known, MAX: Math.max(known.MAX, param.MAX) } : param);
      }
  return [...seen];
}

/**
 * Opens the widget: the linked month from the first paint, then the catalogue with the first month (the
 * whole catalogue when the link names nothing bookable online), the cart kept from before, and the linked
 * dates chosen (searched once they are a whole span).
 */
export async function openWidget(
  host: OpeningHost,
  deps: { client: WidgetApi; store: ReturnType<typeof sessionStore>; link: LinkDates },
): Promise<void> {
  const { client, store, link } = deps;
  const { availability } = host;
  const today = isoDate(new Date());
  if (link.start && linkedDates(link, 'N', today)) availability.showFirst(link.start);
  await host.run(async () => {
    // The first month's two calls bring the catalogue too: the calendar is drawn from the first paint.
    let loaded = await availability.load();
    if (loaded && !loaded.items.length && Object.keys(host.filters).length) {
      // An unknown or staff-only item, or an empty category: say so and offer everything.
      host.unmatched = true;
      availability.forget();
      loaded = await availability.load();
    }
    if (loaded) {
      host.catalogue = loaded.items;
      host.locale = loaded.locale;
    }
    host.ready = true;
    for (const [id, param] of host.params) host.query.params[id] ??= param.def;
    const saved = store.get();
    if (saved) {
      try {
        host.showCart(await client.readSession(saved));
      } catch (error) {
        if (!(error instanceof CallError) || !['session_expired', 'not_found'].includes(error.code))
          throw error;
        store.set(undefined);
      }
    }
    const dates = linkedDates(link, availability.unit, today);
    if (dates) availability.preset(dates.start, dates.end);
    if (dates?.end) {
      host.query.start = dates.start;
      host.query.end = dates.end;
      await host.search({ focus: false });
    }
  }, 'start');
}
