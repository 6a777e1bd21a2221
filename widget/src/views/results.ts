import { html, nothing } from 'lit';
import type { SearchQuery } from '../api.ts';
import { formatDates, formatMoney, formatTime, plural, spanCount, unitWords } from '../format.ts';
import type { Slots, SlotView } from '../slots.ts';
import type { ItemImage, Locale, ResultItem } from '../types.ts';

/** "Only 3 left" shows at this many or fewer: below it a guest should know, above it the count is noise. */
export const FEW_LEFT = 3;

/** What the results need of the element: the rated items, the hourly slots, and "Add to cart". */
export interface ResultsHost {
  readonly results: ResultItem[];
  readonly searched: SearchQuery | undefined;
  readonly locale: Locale | undefined;
  readonly slots: Slots;
  /** The item the calendar is for ('' for everything). */
  readonly chosenItem: string;
  /** "Who is coming" holds a party the API cannot rate: the results are for the party before it. */
  readonly partyInvalid: boolean;
  /** Holds an item: its SLIP goes into the cart. */
  add(item: ResultItem, hours?: { start: string; end: string }): Promise<void>;
}

const firstImage = (item: ResultItem): ItemImage | undefined => Object.values(item.image ?? {})[0];

/** The item's first image: lazy, sized (its width and height when known, else a 4:3 box), 2x when given. */
function renderImage(item: ResultItem) {
  const image = firstImage(item);
  if (!image?.src) return nothing;
  const double = image['src@2x'];
  return html`<img
    part="item-image"
    class="item-image"
    src=${image.src}
    srcset=${double ? `${image.src} 1x, ${double} 2x` : nothing}
    width=${image.width ?? 400}
    height=${image.height ?? 300}
    alt=${image.title || item.name}
    loading="lazy"
    decoding="async"
    referrerpolicy="no-referrer"
    @error=${(event: Event) => {
      (event.target as HTMLElement).hidden = true;
    }}
  />`;
}

/** The price line: "3 nights · $360.00" (or the hour of a slot), and "Only 2 left" when few are. */
function renderPrice(host: ResultsHost, item: ResultItem, span: string) {
  const rate = item.rate;
  const left = rate?.available ?? 0;
  return html`<p class="price" part="price">${span} · ${formatMoney(rate?.total, host.locale)}</p>
    ${left > 0 && left <= FEW_LEFT ? html`<p class="left">Only ${left} left</p>` : nothing}`;
}

function renderAdd(
  host: ResultsHost,
  item: ResultItem,
  nameId: string,
  hours?: { start: string; end: string },
) {
  return html`<button type="button" part="button primary-button" class="primary" aria-describedby=${nameId}
    @click=${() => host.add(item, hours)}>Add to cart</button>`;
}

const bookable = (item: ResultItem | undefined) =>
  item?.rate?.status === 'AVAILABLE' && Boolean(item.rate.slip);

/** An hourly item: its hours on the date as buttons, then the hour chosen with its price. */
function renderSlots(host: ResultsHost, item: ResultItem, view: SlotView | undefined, nameId: string) {
  const date = host.searched?.start ?? '';
  if (!view) return html`<p class="muted">Loading times…</p>`;
  if (view.failed || !view.hours.some((hour) => hour.left > 0))
    return html`<p class="unavailable" part="item-error">No times are free on ${formatDates(date, date, host.locale)}.</p>`;
  const { chosen, rated } = view;
  return html`<fieldset class="slots">
      <legend>Choose a start time on ${formatDates(date, date, host.locale)}</legend>
      <div class="slot-list">
        ${view.hours.map(
          (hour) => html`<button type="button" part="button" class="slot"
            aria-pressed=${chosen?.time === hour.time ? 'true' : 'false'}
            aria-disabled=${hour.left > 0 ? 'false' : 'true'}
            @click=${() => (hour.left > 0 ? host.slots.choose(item, hour) : undefined)}>
            ${formatTime(hour.time, host.locale)}${hour.left > 0 ? nothing : html`<span class="visually-hidden">, full</span>`}
          </button>`,
        )}
      </div>
    </fieldset>
    ${
      chosen && rated
        ? bookable(rated)
          ? html`${renderPrice(host, rated, `${formatTime(chosen.time, host.locale)} · ${unitWords('H', 1)}`)}
            ${renderAdd(host, rated, nameId, host.slots.spanOf(chosen))}`
          : html`<p class="unavailable" part="item-error">${rated.rate?.error || 'Not available at this time'}</p>`
        : nothing
    }`;
}

function renderItem(host: ResultsHost, item: ResultItem) {
  const rate = item.rate;
  const nameId = `item-${item.item_id}-name`;
  const query = host.searched;
  const count = item.days || (query ? spanCount(item.unit, query.start, query.end) : 1);
  return html`<li part="item" class="item">
    ${renderImage(item)}
    <div class="item-body">
      <h3 id=${nameId}>${item.name}</h3>
      ${item.summary ? html`<p class="summary">${item.summary}</p>` : nothing}
      ${
        item.unit === 'H'
          ? renderSlots(host, item, host.slots.views.get(item.item_id), nameId)
          : bookable(item)
            ? html`${renderPrice(host, item, unitWords(item.unit, count))} ${renderAdd(host, item, nameId)}`
            : html`<p class="unavailable" part="item-error">
                ${rate?.error || 'Not available for these dates'}
              </p>`
      }
    </div>
  </li>`;
}

/** The results for the item the calendar is for (all of them for "Everything"). */
const shownResults = (host: Pick<ResultsHost, 'results' | 'chosenItem'>): ResultItem[] =>
  host.chosenItem ? host.results.filter((item) => String(item.item_id) === host.chosenItem) : host.results;

/** Whether a result can be added to the cart now (an hourly item: when one of its hours is free). */
const canBook = (host: Pick<ResultsHost, 'slots'>, item: ResultItem): boolean =>
  item.unit === 'H'
    ? Boolean(host.slots.views.get(item.item_id)?.hours.some((hour) => hour.left > 0))
    : bookable(item);

/** How many of the results can be booked, in words: "2 of 5 options can be booked for Mon, Jan 4 – …". */
export function summarise(
  host: Pick<ResultsHost, 'results' | 'chosenItem' | 'slots' | 'searched' | 'locale'>,
) {
  const query = host.searched;
  if (!query) return '';
  const dates = formatDates(query.start, query.end, host.locale);
  const shown = shownResults(host);
  const open = shown.filter((item) => canBook(host, item)).length;
  if (!shown.length) return `Nothing is offered for ${dates}; choose other dates`;
  if (!open) return `No option can be booked for ${dates}; see why below`;
  return open === shown.length
    ? `${plural(open, 'option', 'options')} can be booked for ${dates}`
    : `${open} of ${plural(shown.length, 'option', 'options')} can be booked for ${dates}`;
}

/** The rated items of the last search, each with its price, what is left and "Add to cart". */
export function renderResults(host: ResultsHost) {
  if (!host.searched) return nothing;
  // Results rated for another party must not be held for this one: they come back with a valid party.
  return html`<section part="results" class="results" aria-labelledby="results-heading">
    <h2 id="results-heading" tabindex="-1">Results</h2>
    ${
      host.partyInvalid
        ? html`<p class="muted">Correct “Who is coming” above to see what you can book for your party.</p>`
        : html`<p class="muted">${summarise(host)}</p>
            <ul class="items" role="list">
              ${shownResults(host).map((item) => renderItem(host, item))}
            </ul>`
    }
  </section>`;
}
