import { html, nothing } from 'lit';
import type { Availability, DayState } from '../availability.ts';
import { dateOf, formatDate, formatDates, formatMoney, formatStay, isoDate, monthSpan } from '../format.ts';
import type { CatalogueItem, Locale } from '../types.ts';

/** What the calendar needs of the element: its state, the offered items, whether they are loaded. */
export interface CalendarHost {
  readonly availability: Availability;
  readonly catalogue: CatalogueItem[];
  readonly locale: Locale | undefined;
  readonly ready: boolean;
  /** The page's link named nothing bookable online: everything is offered instead. */
  readonly unmatched: boolean;
  /** The category the page offers, by its name (undefined when the page names none). */
  readonly categoryName: string | undefined;
  /** The item the calendar is for changed ('' for everything). */
  chooseItem(itemId: string): void;
}

const FULL: Intl.DateTimeFormatOptions = { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' };

/** The six weeks of a month (always six, so the calendar keeps its height from month to month). */
function weeksOf(month: string): Array<Array<string | undefined>> {
  const { first } = monthSpan(month);
  const days = new Date(first.getFullYear(), first.getMonth() + 1, 0).getDate();
  const cells: Array<string | undefined> = Array.from({ length: first.getDay() }, () => undefined);
  for (let day = 1; day <= days; day += 1)
    cells.push(isoDate(new Date(first.getFullYear(), first.getMonth(), day)));
  while (cells.length < 42) cells.push(undefined);
  return Array.from({ length: 6 }, (_, week) => cells.slice(week * 7, week * 7 + 7));
}

/** The day a key moves to (WAI-ARIA APG date picker grid), or undefined for other keys. */
function dayAfterKey(key: string, shift: boolean, from: string): string | undefined {
  const date = dateOf(from);
  const [y, m, d] = [date.getFullYear(), date.getMonth(), date.getDate()];
  const sameDayIn = (year: number, month: number) =>
    isoDate(new Date(year, month, Math.min(d, new Date(year, month + 1, 0).getDate())));
  switch (key) {
    case 'ArrowLeft':
      return isoDate(date, -1);
    case 'ArrowRight':
      return isoDate(date, 1);
    case 'ArrowUp':
      return isoDate(date, -7);
    case 'ArrowDown':
      return isoDate(date, 7);
    case 'Home':
      return isoDate(date, -date.getDay());
    case 'End':
      return isoDate(date, 6 - date.getDay());
    case 'PageUp':
      return shift ? sameDayIn(y - 1, m) : sameDayIn(y, m - 1);
    case 'PageDown':
      return shift ? sameDayIn(y + 1, m) : sameDayIn(y, m + 1);
    default:
      return undefined;
  }
}

/**
 * A day's state in words, as its button's name says it: "checking" only while its month is being loaded,
 * so that a month that failed is not announced as still being checked.
 */
const stateWords = (state: DayState): string =>
  state.past
    ? 'past'
    : state.failed
      ? 'availability not known'
      : state.open === undefined
        ? 'checking'
        : state.open
          ? 'available'
          : 'not available';

function renderDay(host: CalendarHost, date: string | undefined) {
  if (!date) return html`<td role="gridcell"></td>`;
  const { availability } = host;
  const state = availability.day(date);
  const { start, end } = availability;
  const isStart = date === start;
  const isEnd = date === end && end !== start;
  const between = start !== undefined && end !== undefined && date > start && date < end;
  const choosingEnd = start !== undefined && end === undefined && date > start;
  const usable = !state.past && (state.open !== false || choosingEnd);
  const money = state.price ? formatMoney(state.price, host.locale, { whole: true }) : '';
  const nightly = availability.unit !== 'H' && availability.unit !== 'D';
  const label = [
    formatDate(dateOf(date), host.locale, FULL),
    stateWords(state),
    money && nightly ? `from ${money} a night` : '',
    isStart ? 'your first date' : isEnd ? 'your last date' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const kind = state.past ? 'past' : state.open === undefined ? 'unknown' : state.open ? 'free' : 'taken';
  return html`<td role="gridcell" aria-selected=${isStart || isEnd || between ? 'true' : 'false'}>
    <button
      type="button"
      id="day-${date}"
      class="day ${kind} ${isStart ? 'start' : ''} ${isEnd ? 'end' : ''} ${between ? 'between' : ''}"
      tabindex=${date === availability.focused ? '0' : '-1'}
      aria-label=${label}
      aria-disabled=${usable ? 'false' : 'true'}
      @click=${() => availability.pick(date)}
    >
      <span class="num">${dateOf(date).getDate()}</span>
    </button>
    <span class="night-price" aria-hidden="true">${money && nightly ? money : ''}</span>
  </td>`;
}

function onKey(host: CalendarHost, event: KeyboardEvent): void {
  const next = dayAfterKey(event.key, event.shiftKey, host.availability.focused);
  if (!next) return;
  event.preventDefault();
  host.availability.moveTo(next, true);
}

/** Which item the calendar is for: a select when several are offered, else the one item's name. */
function renderChooser(host: CalendarHost) {
  const items = host.catalogue;
  if (host.ready && items.length === 1)
    return html`<p class="chooser">Dates for <strong>${items[0]?.name}</strong></p>`;
  return html`<div class="chooser field" part="field">
    <label for="search-item">Show dates for</label>
    <select id="search-item" ?disabled=${!host.ready}
      @change=${(event: Event) => host.chooseItem((event.target as HTMLSelectElement).value)}>
      <option value="" ?selected=${host.availability.chosen === ''}>${host.categoryName ? `Everything in ${host.categoryName}` : 'Everything'}</option>
      ${items.map(
        (item) =>
          html`<option value=${item.item_id} ?selected=${host.availability.chosen === String(item.item_id)}>${item.name}</option>`,
      )}
    </select>
  </div>`;
}

/** The dates chosen so far, in words, or what to do next; always one line, so nothing moves. */
function renderChoice(host: CalendarHost) {
  const { availability } = host;
  const { start, end } = availability;
  const unit = availability.unit ?? 'D';
  const status = availability.status;
  const text =
    status === 'failed'
      ? 'The calendar could not be loaded.'
      : start && end
        ? availability.unit === 'N' || availability.unit === 'D'
          ? formatStay(availability.unit, { start, end }, host.locale)
          : formatDates(start, end, host.locale)
        : start
          ? `${formatDate(dateOf(start), host.locale, { weekday: 'short', month: 'short', day: 'numeric' })} – ${unit === 'N' ? 'now choose your check-out date' : 'now choose your last day'}`
          : !host.ready || status === 'loading'
            ? 'Loading availability…'
            : unit === 'H'
              ? 'Choose a date on the calendar.'
              : 'Choose your first and last dates on the calendar.';
  return html`<div class="dates-chosen">
    <p id="calendar-choice">${text}</p>
    ${
      status === 'failed'
        ? html`<button type="button" part="button" @click=${() => availability.retry()}>Try again</button>`
        : start
          ? html`<button type="button" part="button" @click=${() => availability.clear()}>Clear dates</button>`
          : nothing
    }
  </div>`;
}

/** The availability calendar (WAI-ARIA APG date picker grid): open days, prices a night, the dates chosen. */
export function renderCalendar(host: CalendarHost) {
  const { availability } = host;
  const { first } = monthSpan(availability.month);
  const title = formatDate(first, host.locale, { month: 'long', year: 'numeric' });
  const weekday = (index: number, style: 'short' | 'long') =>
    formatDate(new Date(2023, 0, 1 + index), host.locale, { weekday: style });
  return html`<section part="calendar" class="panel availability" aria-labelledby="search-heading"
    aria-busy=${availability.status === 'loading' || !host.ready ? 'true' : 'false'}>
    <h2 id="search-heading" tabindex="-1">Choose your dates</h2>
    ${host.unmatched ? html`<p class="link-note">This link names something that cannot be booked online; here is everything you can book.</p>` : nothing}
    ${renderChooser(host)}
    <div class="month-nav">
      <button type="button" part="button" aria-label="Previous month" aria-disabled=${availability.atFirstMonth ? 'true' : 'false'}
        @click=${() => availability.showMonth(-1)}>‹</button>
      <h3 id="calendar-month" aria-live="polite">${title}</h3>
      <button type="button" part="button" aria-label="Next month" @click=${() => availability.showMonth(1)}>›</button>
    </div>
    <table role="grid" class="grid" aria-labelledby="calendar-month" aria-describedby="calendar-choice"
      @keydown=${(event: KeyboardEvent) => onKey(host, event)}>
      <thead>
        <tr>
          ${[0, 1, 2, 3, 4, 5, 6].map(
            (index) =>
              html`<th scope="col"><span class="visually-hidden">${weekday(index, 'long')}</span><span aria-hidden="true">${weekday(index, 'short')}</span></th>`,
          )}
        </tr>
      </thead>
      <tbody>
        ${weeksOf(availability.month).map((week) => html`<tr>${week.map((date) => renderDay(host, date))}</tr>`)}
      </tbody>
    </table>
    <p class="legend muted" aria-hidden="true">
      <span class="key free"></span> Available <span class="key taken"></span> Not available
    </p>
    ${renderChoice(host)}
  </section>`;
}
