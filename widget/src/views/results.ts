import { html, nothing } from 'lit';
import { formatMoney } from '../format.ts';
import type { ResultItem } from '../types.ts';
import { type CalendarHost, renderCalendar, toggleCalendar } from './calendar.ts';

/** What the results need of the element: the rated items, their calendars, and "Add to cart". */
export interface ResultsHost extends CalendarHost {
  readonly results: ResultItem[];
  /** Holds an item: its SLIP goes into the cart. */
  add(item: ResultItem): Promise<void>;
}

const firstImage = (item: ResultItem) => Object.values(item.image ?? {})[0];

function renderItem(host: ResultsHost, item: ResultItem) {
  const rate = item.rate;
  const image = firstImage(item);
  const nameId = `item-${item.item_id}-name`;
  const bookable = rate?.status === 'AVAILABLE' && Boolean(rate.slip);
  const calendar = host.calendars.get(item.item_id);
  return html`<li part="item" class="item">
    ${
      image
        ? html`<img
          part="item-image"
          class="item-image"
          src=${image.src}
          alt=${image.title || item.name}
          loading="lazy"
          referrerpolicy="no-referrer"
          @error=${(event: Event) => {
            (event.target as HTMLElement).hidden = true;
          }}
        />`
        : nothing
    }
    <div class="item-body">
      <h3 id=${nameId}>${item.name}</h3>
      ${item.summary ? html`<p class="summary">${item.summary}</p>` : nothing}
      ${rate?.summary.date ? html`<p class="muted">${rate.summary.date}</p>` : nothing}
      ${
        bookable && rate
          ? html`<p class="price" part="price">
              <span class="visually-hidden">Total price: </span>${formatMoney(rate.total, host.locale)}
            </p>
            <p class="left">${rate.available} left</p>
            <button
              type="button"
              part="button primary-button"
              class="primary"
              aria-describedby=${nameId}
              @click=${() => host.add(item)}
            >
              Add to cart
            </button>`
          : html`<p class="unavailable" part="item-error">
              ${rate?.error || rate?.summary.title || 'Not available for these dates'}
            </p>`
      }
      <button
        type="button"
        part="button"
        class="link"
        aria-expanded=${calendar ? 'true' : 'false'}
        aria-controls="calendar-${item.item_id}"
        aria-describedby=${nameId}
        @click=${() => toggleCalendar(host, item)}
      >
        ${calendar ? 'Hide availability' : 'Show availability'}
      </button>
      <div id="calendar-${item.item_id}">${calendar ? renderCalendar(host, item, calendar) : nothing}</div>
    </div>
  </li>`;
}

/** The rated items of the last search, each with its price, what is left and "Add to cart". */
export function renderResults(host: ResultsHost) {
  if (!host.searched) return nothing;
  return html`<section part="results" class="results" aria-labelledby="results-heading">
    <h2 id="results-heading" tabindex="-1">Results</h2>
    <p class="muted">
      ${host.results.length === 1 ? '1 item' : `${host.results.length} items`} for these dates
    </p>
    <ul class="items" role="list">
      ${host.results.map((item) => renderItem(host, item))}
    </ul>
  </section>`;
}
