import { html, nothing, type ReactiveControllerHost } from 'lit';
import { live } from 'lit/directives/live.js';
import type { SearchQuery } from '../api.ts';
import type { Calls } from '../calls.ts';
import { isIsoDate, isoDate } from '../format.ts';
import type { ParamDefinition } from '../types.ts';

/** Which kinds of dates the search asks for: start and end, and times when items are hourly. */
export interface DateMode {
  hourlyOnly: boolean;
  hasHourly: boolean;
}

/** What the search form needs of the element: the query it edits, its problems, and the search. */
export interface SearchHost extends ReactiveControllerHost {
  readonly query: SearchQuery;
  readonly dateMode: DateMode;
  readonly params: Array<[string, ParamDefinition]>;
  searchProblems: Record<string, string>;
  run: Calls['run'];
  /** Rates the offered items for the query's dates and quantities. */
  search(): Promise<void>;
  focusPart(id: string): void;
}

/** The search form's own problems (field id → message), checked before any call. */
function checkSearch(host: SearchHost): Record<string, string> {
  const { query } = host;
  const { hourlyOnly, hasHourly } = host.dateMode;
  const problems: Record<string, string> = {};
  if (!isIsoDate(query.start)) problems.start = 'Enter a date as YYYY-MM-DD, like 2027-01-31';
  if (!hourlyOnly) {
    if (!isIsoDate(query.end)) problems.end = 'Enter a date as YYYY-MM-DD, like 2027-01-31';
    else if (!problems.start && query.end < query.start)
      problems.end = 'End date must be after the start date';
  }
  if (hasHourly) {
    const startTime = query.startTime ?? '';
    const endTime = query.endTime ?? '';
    if ((hourlyOnly || startTime || endTime) && !startTime) problems.startTime = 'Enter a start time';
    if ((hourlyOnly || startTime || endTime) && !endTime) problems.endTime = 'Enter an end time';
    if (startTime && endTime && endTime <= startTime)
      problems.endTime = 'End time must be after the start time';
  }
  for (const [id, param] of host.params) {
    const qty = host.query.params[id];
    if (qty === undefined || !Number.isInteger(qty) || qty < 0 || qty > param.MAX)
      problems[`param-${id}`] = `Enter a whole number from 0 to ${param.MAX}`;
  }
  return problems;
}

async function submit(host: SearchHost, event: Event): Promise<void> {
  event.preventDefault();
  const found = checkSearch(host);
  host.searchProblems = found;
  const first = Object.keys(found)[0];
  if (first) {
    await host.updateComplete;
    host.focusPart(`search-${first}`);
    return;
  }
  await host.run(() => host.search(), 'search');
}

const field = (
  host: SearchHost,
  id: string,
  label: string,
  input: (describedBy: string | typeof nothing, invalid: boolean) => unknown,
  hint?: string,
) => {
  const problem = host.searchProblems[id];
  const ids = [hint ? `search-${id}-hint` : '', problem ? `search-${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return html`<div class="field" part="field">
    <label for="search-${id}">${label}</label>
    ${hint ? html`<span class="hint" id="search-${id}-hint">${hint}</span>` : nothing}
    ${problem ? html`<span class="field-error" id="search-${id}-error">${problem}</span>` : nothing}
    ${input(ids || nothing, Boolean(problem))}
  </div>`;
};

/** The search: dates (and times for hourly items), a quantity per booking parameter, and "Search". */
export function renderSearch(host: SearchHost) {
  const { query } = host;
  const { hourlyOnly, hasHourly } = host.dateMode;
  const date = (id: 'start' | 'end', label: string) =>
    field(
      host,
      id,
      label,
      (describedBy, invalid) => html`<input
        id="search-${id}"
        type="date"
        required
        .value=${live(query[id])}
        aria-invalid=${invalid ? 'true' : 'false'}
        aria-describedby=${describedBy}
        @input=${(event: Event) => {
          query[id] = (event.target as HTMLInputElement).value;
          // A start moved past the end takes the end along (a night later), as date pickers do.
          if (id === 'start' && isIsoDate(query.start) && query.end < query.start) {
            const [year, month, day] = query.start.split('-').map(Number) as [number, number, number];
            query.end = isoDate(new Date(year, month - 1, day), 1);
            host.requestUpdate();
          }
        }}
      />`,
    );
  const time = (id: 'startTime' | 'endTime', label: string) =>
    field(
      host,
      id,
      label,
      (describedBy, invalid) => html`<input
        id="search-${id}"
        type="time"
        step="3600"
        ?required=${hourlyOnly}
        .value=${query[id] ?? ''}
        aria-invalid=${invalid ? 'true' : 'false'}
        aria-describedby=${describedBy}
        @input=${(event: Event) => {
          query[id] = (event.target as HTMLInputElement).value;
        }}
      />`,
      hourlyOnly ? undefined : 'For hourly rentals',
    );
  return html`<form part="search" class="search" novalidate aria-labelledby="search-heading"
    @submit=${(event: Event) => submit(host, event)}>
    <h2 id="search-heading" tabindex="-1">Check availability</h2>
    <div class="fields">
      ${hourlyOnly ? date('start', 'Date') : html`${date('start', 'Start date')} ${date('end', 'End date')}`}
      ${hasHourly ? html`${time('startTime', 'Start time')} ${time('endTime', 'End time')}` : nothing}
      ${host.params.map(([id, param]) =>
        field(
          host,
          `param-${id}`,
          param.lbl,
          (describedBy, invalid) => html`<input
            id="search-param-${id}"
            type="number"
            inputmode="numeric"
            min="0"
            max=${param.MAX}
            .value=${String(query.params[id] ?? param.def)}
            aria-invalid=${invalid ? 'true' : 'false'}
            aria-describedby=${describedBy}
            @input=${(event: Event) => {
              const text = (event.target as HTMLInputElement).value;
              query.params[id] = text === '' ? Number.NaN : Number(text);
            }}
          />`,
        ),
      )}
    </div>
    <button type="submit" part="button primary-button" class="primary">Search</button>
  </form>`;
}
