import type { Challenge } from 'altcha-lib';
import type { components } from '#lib/client/api.d.ts';
import { createBookingClient } from '#lib/client/index.ts';
import { CallError } from './call-error.ts';
import { solveAltcha } from './pow.ts';
import type {
  CatalogueItem,
  CheckoutForm,
  Confirmation,
  FormField,
  Locale,
  PaymentTerms,
  Rate,
  ResultItem,
  Session,
} from './types.ts';

export { CallError };

/** What the typed client resolves to: the documented body of a success, or of a refusal. */
interface Answer<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/** The body of a successful answer, typed by the OpenAPI document, or a CallError that says why not. */
async function unwrap<Data>(call: Promise<Answer<Data>>): Promise<Data> {
  let answer: Answer<Data>;
  try {
    answer = await call;
  } catch {
    throw new CallError(0, 'network', 'The booking service could not be reached.');
  }
  const { data, error, response } = answer;
  if (response.ok && data) return data;
  // API Gateway's own answers (throttling, a failed integration) are not in the document: no envelope,
  // only `message`.
  const body = (error ?? {}) as Partial<components['schemas']['ErrorEnvelope']> & {
    message?: string;
    error_description?: string;
  };
  const failure = body.request?.error;
  const data_ = failure?.data;
  const fields =
    data_ && typeof data_ === 'object' && !Array.isArray(data_) ? (data_ as Record<string, string>) : {};
  const retryAfter = Number(response.headers.get('retry-after'));
  throw new CallError(
    response.status,
    failure?.id ?? (response.status === 429 ? 'rate_limited' : 'http_error'),
    failure?.details || failure?.title || body.error_description || body.message || response.statusText,
    fields,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    Boolean(failure?.details || failure?.title),
  );
}

/** What a search asks: dates (YYYY-MM-DD), times for hourly items, and a quantity per parameter. */
export interface SearchQuery {
  start: string;
  end: string;
  startTime?: string;
  endTime?: string;
  params: Record<string, number>;
}

/** Which items the widget offers: a category, or some items, as the page's attributes say. */
export interface Filters {
  category?: string;
  items?: string[];
}

const byPosition = <T extends { pos: number; item_id: number }>(items: T[]): T[] =>
  items.sort((a, b) => a.pos - b.pos || a.item_id - b.item_id);

/** The query of a rated call: dates, times for hourly items, and the quantities. */
const rated = (query: SearchQuery) => ({
  start_date: query.start,
  end_date: query.end,
  ...(query.startTime && query.endTime ? { start_time: query.startTime, end_time: query.endTime } : {}),
  param: Object.fromEntries(Object.entries(query.params).map(([id, qty]) => [id, String(qty)])),
});

const filterQuery = (filters: Filters) => ({
  ...(filters.category ? { category_id: filters.category } : {}),
  ...(filters.items?.length ? { 'item_id[]': filters.items } : {}),
});

/**
 * The calls the widget makes, through the typed client. Never with cookies: on a business's site the
 * API is a third party, so the session travels as the `session_id` parameter.
 */
export function createWidgetApi(base: string) {
  const client = createBookingClient({
    baseUrl: base,
    fetch: (input, init) => fetch(input, { ...init, credentials: 'omit' }),
  });
  return {
    /**
     * The offered items rated over a month (`start` to the first of the next month): the catalogue (names,
     * units, booking parameters, images) and each date's price at the default party, in one call.
     */
    async month(filters: Filters, span: { start: string; end: string }) {
      const body = await unwrap(
        client.GET('/item', {
          params: { query: { ...filterQuery(filters), start_date: span.start, end_date: span.end } },
        }),
      );
      // Rated, each item still carries its parameters' labels, defaults and bounds (as the catalogue does).
      const items = Object.values(body.items) as unknown as Array<CatalogueItem & { rate?: Rate }>;
      return { items: byPosition(items), locale: body.locale };
    },

    /** Which dates of a span each offered item can be booked on (`item/cal`: 1 or 0 per date). */
    async openDates(filters: Filters, span: { start: string; end: string }) {
      const body = await unwrap(
        client.GET('/item/cal', {
          params: { query: { ...filterQuery(filters), start_date: span.start, end_date: span.end } },
        }),
      );
      return body.items as Record<string, Record<string, number>>;
    },

    async search(query: SearchQuery, filters: Filters): Promise<{ items: ResultItem[]; locale: Locale }> {
      const body = await unwrap(
        client.GET('/item', { params: { query: { ...filterQuery(filters), ...rated(query) } } }),
      );
      const items: ResultItem[] = Object.values(body.items);
      return { items: byPosition(items), locale: body.locale };
    },

    /** One item rated (an hourly item over its hours, or one of its slots). */
    async rateItem(itemId: number, query: SearchQuery): Promise<ResultItem> {
      const body = await unwrap(
        client.GET('/item/{item_id}', {
          params: { path: { item_id: String(itemId) }, query: rated(query) },
        }),
      );
      return body.item as ResultItem;
    },

    async readSession(sessionId: string): Promise<Session> {
      const body = await unwrap(
        client.GET('/booking/session', { params: { query: { session_id: sessionId } } }),
      );
      return body.booking.session;
    },

    async writeSession(change: {
      sessionId?: string;
      slip?: string;
      alter?: Record<string, string | number>;
    }): Promise<Session> {
      const send = (altcha?: string) =>
        unwrap(
          client.POST('/booking/session', {
            body: {
              ...(change.sessionId ? { session_id: change.sessionId } : {}),
              ...(change.slip ? { slip: [change.slip] } : {}),
              ...(change.alter ? { alter: change.alter } : {}),
              ...(altcha ? { altcha } : {}),
            },
          }),
        );
      try {
        return (await send()).booking.session;
      } catch (error) {
        // Few are left: the API asks this browser for a proof of work, solved here and sent back once.
        const challenge =
          error instanceof CallError && error.code === 'challenge_required'
            ? (error.fields as unknown as { challenge?: Challenge }).challenge
            : undefined;
        if (!challenge) throw error;
        const altcha = await solveAltcha(challenge);
        if (!altcha) throw new CallError(0, 'challenge_failed', 'This browser could not complete the check.');
        return (await send(altcha)).booking.session;
      }
    },

    /**
     * The business's country (`company.country_id`, undefined when the API names none), how it takes payment
     * at booking, and its currency's decimals.
     */
    async company(): Promise<{ country?: string; payment: PaymentTerms; decimals: number }> {
      const { company } = await unwrap(client.GET('/company'));
      const id = (company as { country_id?: unknown }).country_id;
      return {
        ...(typeof id === 'string' && id ? { country: id } : {}),
        payment: company.payment,
        decimals: company.currency.decimals,
      };
    },

    async form(): Promise<CheckoutForm> {
      const body = await unwrap(client.GET('/booking/form'));
      // booking_policy is also inside the form, where the API 3.0 service's sample puts it.
      const skip = new Set(['msg', 'errors', 'mode', '_cnf', 'booking_policy']);
      const fields = Object.entries(body.booking_form_ui).filter(
        (entry): entry is [string, FormField] => !skip.has(entry[0]) && typeof entry[1] === 'object',
      );
      const policyFields = Object.entries(body.booking_policy.fields ?? {});
      return { fields: [...fields, ...policyFields], policy: body.booking_policy.body };
    },

    async book(
      sessionId: string,
      form: Record<string, string>,
      idempotencyKey: string,
    ): Promise<Confirmation> {
      const body = await unwrap(
        client.POST('/booking/create', {
          body: { session_id: sessionId, form },
          params: { header: { 'Idempotency-Key': idempotencyKey } },
        }),
      );
      const url = body.request.data?.url;
      const { booking } = body;
      return {
        code: booking.code,
        total: booking.total ?? '0',
        invoiceUrl: booking.invoice_url ?? (typeof url === 'string' ? url : ''),
        manageUrl: booking.manage_url ?? '',
        ...(booking.deposit ? { deposit: booking.deposit } : {}),
        ...(booking.payment_url ? { paymentUrl: booking.payment_url } : {}),
        ...(booking.payment_deadline ? { paymentDeadline: booking.payment_deadline } : {}),
      };
    },
  };
}

/** The calls of one widget. */
export type WidgetApi = ReturnType<typeof createWidgetApi>;

/**
 * Where the widget keeps its session id: the page's sessionStorage (per tab, per API), or memory when
 * the page forbids storage.
 */
export function sessionStore(base: string) {
  const key = `booking-widget:session:${base}`;
  let memory: string | undefined;
  return {
    get(): string | undefined {
      try {
        return sessionStorage.getItem(key) ?? undefined;
      } catch {
        return memory;
      }
    },
    set(id: string | undefined): void {
      memory = id;
      try {
        if (id) sessionStorage.setItem(key, id);
        else sessionStorage.removeItem(key);
      } catch {
        // Storage disabled (a sandboxed frame): the id lives in memory for this page.
      }
    },
  };
}
