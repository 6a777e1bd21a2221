import { html } from 'lit';
import type { SearchQuery, WidgetApi } from '../api.ts';
import type { Calls } from '../calls.ts';
import { isoDate, languageTag, monthSpan } from '../format.ts';
import type { Locale, ResultItem } from '../types.ts';

/** One item's month calendar, shown on demand. */
export interface CalendarView {
  month: string;
  days?: Record<string, number>;
  failed?: boolean;
}

/** What the items' calendars need of the element: the calendars shown, the searched dates, the calls. */
export interface CalendarHost {
  calendars: Map<number, CalendarView>;
  readonly searched: SearchQuery | undefined;
  readonly locale: Locale | undefined;
  readonly client: WidgetApi | undefined;
  run: Calls['run'];
}

/** Loads an item's month (`item/{id}/cal`) and shows it, or hides it when shown. */
export async function toggleCalendar(host: CalendarHost, item: ResultItem, month?: string): Promise<void> {
  const calendars = new Map(host.calendars);
  if (!month && calendars.has(item.item_id)) {
    calendars.delete(item.item_id);
    host.calendars = calendars;
    return;
  }
  const span = monthSpan(month ?? host.searched?.start ?? isoDate(new Date()));
  calendars.set(item.item_id, { month: span.start });
  host.calendars = calendars;
  const client = host.client;
  if (!client) return;
  const loaded = await host.run(async () => {
    const days = await client.calendar(item.item_id, span.start, span.end);
    host.calendars = new Map(host.calendars).set(item.item_id, { month: span.start, days });
  }, `calendar:${item.item_id}`);
  if (!loaded)
    host.calendars = new Map(host.calendars).set(item.item_id, { month: span.start, failed: true });
}

/** A month as a table: one row a week, each day saying whether the item can be booked. */
export function renderCalendar(host: CalendarHost, item: ResultItem, view: CalendarView) {
  const { first } = monthSpan(view.month);
  const language = languageTag(host.locale);
  const title = new Intl.DateTimeFormat(language, { month: 'long', year: 'numeric' }).format(first);
  const weekday = new Intl.DateTimeFormat(language, { weekday: 'short' });
  const weekdayLong = new Intl.DateTimeFormat(language, { weekday: 'long' });
  const daysInMonth = new Date(first.getFullYear(), first.getMonth() + 1, 0).getDate();
  const cells: Array<Date | undefined> = Array.from({ length: first.getDay() }, () => undefined);
  for (let day = 1; day <= daysInMonth; day += 1)
    cells.push(new Date(first.getFullYear(), first.getMonth(), day));
  while (cells.length % 7) cells.push(undefined);
  const weeks = Array.from({ length: cells.length / 7 }, (_, week) => cells.slice(week * 7, week * 7 + 7));
  const header = weeks[0]?.map((_, index) => new Date(2023, 0, 1 + index));
  const dayCell = (date: Date | undefined) => {
    if (!date) return html`<td></td>`;
    const free = (view.days?.[isoDate(date).replaceAll('-', '')] ?? 0) > 0;
    return html`<td class=${free ? 'free' : 'taken'}>
      ${date.getDate()}<span class="visually-hidden">${free ? ', available' : ', not available'}</span>
    </td>`;
  };
  const move = (offset: number) => toggleCalendar(host, item, monthSpan(view.month, offset).start);
  return html`<div part="calendar" class="calendar">
    <div class="calendar-nav">
      <button type="button" part="button" @click=${() => move(-1)} aria-label="Previous month">‹</button>
      <button type="button" part="button" @click=${() => move(1)} aria-label="Next month">›</button>
    </div>
    ${
      view.failed
        ? html`<p class="unavailable">The calendar could not be loaded.</p>`
        : view.days
          ? html`<table>
              <caption>${item.name}: ${title}</caption>
              <thead>
                <tr>
                  ${header?.map(
                    (day) =>
                      html`<th scope="col"><abbr title=${weekdayLong.format(day)}>${weekday.format(day)}</abbr></th>`,
                  )}
                </tr>
              </thead>
              <tbody>
                ${weeks.map((week) => html`<tr>${week.map(dayCell)}</tr>`)}
              </tbody>
            </table>
            <p class="muted legend"><span class="key free"></span> available <span class="key taken"></span> not available</p>`
          : html`<p class="muted">Loading ${title}…</p>`
    }
  </div>`;
}
