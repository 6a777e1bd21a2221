import { html, nothing, type ReactiveControllerHost } from 'lit';
import type { SearchQuery } from '../api.ts';
import type { ParamDefinition } from '../types.ts';

/** What the quantities need of the element: the query they edit, their problems, and the search again. */
export interface SearchHost extends ReactiveControllerHost {
  readonly query: SearchQuery;
  readonly params: Array<[string, ParamDefinition]>;
  readonly ready: boolean;
  readonly searched: SearchQuery | undefined;
  searchProblems: Record<string, string>;
  /** Rates the chosen dates again with the quantities as they are now. */
  searchDates(): Promise<void>;
  /** The party was edited (the results are not bookable while it is invalid). */
  checkParty(): void;
}

/** The quantities' own problems (field id → message), checked before any call. */
export function checkSearch(host: Pick<SearchHost, 'query' | 'params'>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const [id, param] of host.params) {
    const qty = host.query.params[id];
    if (qty === undefined || !Number.isInteger(qty) || qty < 0 || qty > param.MAX)
      problems[`param-${id}`] = `Enter a whole number from 0 to ${param.MAX}`;
  }
  return problems;
}

/**
 * "Who is coming": a quantity for each booking parameter the items use, with the tenant's labels. A
 * change searches the chosen dates again. Until the items are known the box keeps its place.
 */
export function renderSearch(host: SearchHost) {
  const { query } = host;
  return html`<section part="search" class="panel search" aria-labelledby="party-heading">
    <h2 id="party-heading">Who is coming</h2>
    <div class="fields">
      ${host.params.map(([id, param]) => {
        const key = `param-${id}`;
        const problem = host.searchProblems[key];
        return html`<div class="field" part="field">
          <label for="search-${key}">${param.lbl}</label>
          ${problem ? html`<span class="field-error" id="search-${key}-error">${problem}</span>` : nothing}
          <input
            id="search-${key}"
            type="number"
            inputmode="numeric"
            min="0"
            max=${param.MAX}
            .value=${String(query.params[id] ?? param.def)}
            aria-invalid=${problem ? 'true' : 'false'}
            aria-describedby=${problem ? `search-${key}-error` : nothing}
            @input=${(event: Event) => {
              const text = (event.target as HTMLInputElement).value;
              query.params[id] = text === '' ? Number.NaN : Number(text);
              host.checkParty();
            }}
            @change=${() => (host.searched ? host.searchDates() : undefined)}
          />
        </div>`;
      })}
      ${host.ready ? nothing : html`<p class="muted">Loading…</p>`}
    </div>
  </section>`;
}
