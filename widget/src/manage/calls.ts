// The guest's page of a booking talks to the API with the booking's token (docs/manage-page.md): its view,
// the cancel and the change, each quoted then confirmed. A plain fetch: the page is one small module, no
// client library.

/** An API answer as the page reads it: the HTTP status, the body, and the error the envelope carries. */
export interface Answer<T> {
  status: number;
  body: T | undefined;
  error: { id: string; details: string; data: Record<string, unknown> } | undefined;
}

/** The booking as the guest's view answers it (GET booking/{id}/manage). */
export interface GuestBooking {
  code: string;
  status_id: string;
  status_name: string;
  date_desc: string;
  customer_name: string;
  start_date: number;
  end_date: number;
  items: Record<
    string,
    {
      name: string;
      unit: string;
      qty: number;
      end_date: number;
      param: Record<string, { qty: number; lbl: string }>;
      date_desc: string;
      total: string;
    }
  >;
  total: string;
  paid_total: string;
  due: string;
  payments: Array<{ date: number; amount: string; method: string }>;
  payment?: { amount: string; deadline: number; url: string };
  /** A change waiting for its payment (`payment` is then its checkout). */
  change?: { start_date: number; end_date: number; total: string; deadline: number };
  invoice_url: string;
  cancellation_policy?: { text: string };
}

/** What a cancel would give back now, or what it gave back (GET and POST booking/{id}/manage/cancel). */
export interface Cancellation {
  quote: string;
  refund: string;
  paid: string;
  fee: string;
  deposit_kept: string;
  currency: string;
  text: string;
  through_provider?: string;
  owed?: string;
}

/** What a change of dates or party would cost or give back now (GET booking/{id}/manage/change). */
export interface ChangeQuote {
  quote: string;
  mode: 'change' | 'pay';
  to: { date_desc: string; total: string };
  difference: string;
  refund: string;
  kept: string;
  charge: string;
  text: string;
}

/** What a confirmed change did (POST booking/{id}/manage/change); `made` false while it waits for `payment`. */
export interface ChangeMade {
  made: boolean;
  payment?: { url?: string };
  refund: string;
  through_provider: string;
  owed: string;
}

async function call<T>(url: string, init?: RequestInit): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers: { accept: 'application/json', ...init?.headers } });
  } catch {
    // No answer at all (offline): shown as the service being out of reach.
    return { status: 0, body: undefined, error: undefined };
  }
  const json = (await response.json().catch(() => undefined)) as
    | (T & { request?: { error?: Answer<T>['error'] } })
    | undefined;
  const error = json?.request?.error;
  return {
    status: response.status,
    body: response.ok ? json : undefined,
    error: error ? { id: error.id, details: error.details ?? '', data: error.data ?? {} } : undefined,
  };
}

/** The calls of one booking's page: `api` the API's base, `code` and `token` from the link. */
export function createCalls(api: string, code: string, token: string) {
  const base = `${api}/booking/${encodeURIComponent(code)}/manage`;
  const query = `token=${encodeURIComponent(token)}`;
  const post = (body: string): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `${query}&${body}`,
  });
  return {
    view: () => call<{ booking: GuestBooking }>(`${base}?${query}`),
    quote: () => call<{ cancellation: Cancellation }>(`${base}/cancel?${query}`),
    cancel: (quote: string) =>
      call<{ cancellation: Cancellation }>(`${base}/cancel`, post(`quote=${encodeURIComponent(quote)}`)),
    /** `change` is the change's own query: `start_date`, `end_date`, `param[...]`. */
    changeQuote: (change: string) => call<{ change: ChangeQuote }>(`${base}/change?${query}&${change}`),
    change: (change: string, quote: string) =>
      call<{ change: ChangeMade }>(`${base}/change`, post(`${change}&quote=${encodeURIComponent(quote)}`)),
  };
}

/** The calls of one booking's page. */
export type Calls = ReturnType<typeof createCalls>;
