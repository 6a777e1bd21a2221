import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import {
  addNote,
  type BookingContext,
  cancellationTermsFor,
  changeStatus,
  checkInOrOut,
  createBooking,
  findBooking,
  listBookings,
  openGuestBooking,
  runOnceOrReplay,
  setBookmark,
  unknownFormFields,
} from '#lib/bookings/index.ts';
import { assertNotCrossSite } from '#lib/http/cross-site.ts';
import type { RouteResult } from '#lib/http/envelope.ts';
import { AuthError, validationError } from '#lib/http/errors.ts';
import type { ApiRequest, RouteHandler } from '#lib/http/group-handler.ts';
import { reportIgnored } from '#lib/http/ignored.ts';
import { asList } from '#lib/http/parse.ts';
import { PAGE_CSP } from '#lib/http/respond.ts';
import { sessionIdOf } from '#lib/http/session-cookie.ts';
import { booleanParam, noParameters, parseInput } from '#lib/http/validate.ts';
import { DomainError, NO_SUCH_SESSION } from '#lib/kernel/errors.ts';
import { METRIC } from '#lib/kernel/metric-names.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import type { ProviderSource } from '#lib/payments/index.ts';
import { isSessionId, MAX_POW_PAYLOAD } from '#lib/sessions/index.ts';
import type { SlipKey } from '#lib/slip/index.ts';
import { readListQuery } from './list.ts';
import { paymentOptionsFor } from './payment-return.ts';
import { invoiceUrl, presentCreated, presentForm, presentRecord, presentRow } from './present.ts';
import { presentCancellation } from './present-cancellation.ts';
import { presentInvoice } from './present-invoice.ts';

/** What the bookings routes need. */
export interface BookingDeps {
  db: Db;
  slipKeys: () => Promise<readonly SlipKey[]>;
  /** The payment provider of a create that takes payment (issue 43). */
  payments?: ProviderSource;
}

export const contextOf = async (deps: BookingDeps, request: ApiRequest): Promise<BookingContext> => ({
  db: deps.db,
  config: request.config,
  keys: await deps.slipKeys(),
  caller: request.caller,
  requester: request.requester,
  now: request.now,
});

const flag = z.optional(booleanParam);

/**
 * GET booking/form: the form for the caller (customers and staff see their own layout) and the policy, with
 * the cancellation terms of the cart (session parameter or cookie) at its dates, or else the tenant's.
 */
export const createBookingForm =
  (deps: BookingDeps): RouteHandler =>
  async ({ input, config, caller, cookies, now }) => {
    const { sessionId } = sessionIdOf(input, cookies);
    parseInput(noParameters, input);
    const audience = caller.kind === 'staff' ? 'staff' : 'customer';
    const terms = await cancellationTermsFor({ db: deps.db, config, now }, sessionId);
    const cancellation =
      terms &&
      presentCancellation(terms.snapshot, {
        config,
        now,
        start: terms.start,
        fromNow: true,
        names: terms.names,
        deposit: config.settings.payment?.take === 'deposit',
        staff: false,
      });
    const { ui, policy } = presentForm(config, audience, cancellation);
    return {
      // The policy where clients of this API read it, and inside the form, where the API 3.0 service's
      // own sample puts it: each kind of client finds it.
      body: { booking_form_ui: { ...ui, booking_policy: policy }, booking_policy: policy },
      request: { id: 'form', records: Object.keys(ui).length - 4 },
    };
  };

export const createSchema = z.strictObject({
  form: z.optional(z.record(z.string(), z.unknown())),
  slip: z.optional(z.union([z.string(), z.array(z.string()), z.record(z.string(), z.string())])),
  giftcert_code: z.optional(z.string().check(z.maxLength(32))),
  altcha: z.optional(z.string().check(z.maxLength(MAX_POW_PAYLOAD))),
  return_url: z.optional(z.string().check(z.maxLength(2000))),
});

const hashOf = (value: unknown): string =>
  createHash('sha256').update(JSON.stringify(value)).digest('base64url');

/**
 * POST booking/create: books the session (parameter or cookie) or SLIPs directly. With an
 * `Idempotency-Key`, the first result is replayed for 24 h; the same key with a different request is 422,
 * and while the first is still running, 409 `in_progress`.
 */
export const createCreateBooking =
  (deps: BookingDeps): RouteHandler =>
  async (request) => {
    const { sessionId, source } = sessionIdOf(request.input, request.cookies);
    const parsed = parseInput(createSchema, request.input);
    // Reported before anything is checked or replayed, so a refused or a repeated create names them too.
    reportIgnored(
      request.input,
      unknownFormFields(request.config, parsed.form, request.caller.kind === 'staff' ? 'staff' : 'customer'),
    );
    if (sessionId && !isSessionId(sessionId)) {
      throw new DomainError('not_found', NO_SUCH_SESSION, { session_id: sessionId.slice(0, 64) });
    }
    if (source === 'cookie' && request.caller.kind === 'customer' && !request.caller.credentialKey) {
      assertNotCrossSite(request.headers, request.config.settings.cors_origins);
    }
    const slips = asList(parsed.slip).map(String);
    const key = request.headers['idempotency-key'];
    const run = async (): Promise<RouteResult> => {
      const payment = await paymentOptionsFor(request, deps.payments, parsed.return_url);
      const context = await contextOf(deps, request);
      const { booking, existing, proven, attempt } = await createBooking(
        payment ? { ...context, payment } : context,
        {
          ...(sessionId ? { sessionId } : {}),
          slips,
          form: parsed.form ?? {},
          ...(parsed.giftcert_code ? { giftcertCode: parsed.giftcert_code } : {}),
          ...(parsed.altcha ? { altcha: parsed.altcha } : {}),
        },
      );
      if (!existing) request.meter.count(METRIC.bookingsCreated);
      const created = presentCreated(booking, {
        config: request.config,
        apiUrl: request.apiUrl,
        audience: request.caller.kind,
        proven,
        ...(attempt ? { attempt } : {}),
      });
      return {
        body: { booking: created },
        request: {
          id: 'create',
          records: 1,
          data:
            'invoice_url' in created
              ? { url: created.payment_url ?? created.invoice_url, existing: existing ? 1 : 0 }
              : { existing: 1 },
        },
      };
    };
    if (!key) return run();
    if (key.length > 255) throw validationError({ 'Idempotency-Key': 'at most 255 characters' });
    return runOnceOrReplay(
      deps.db,
      {
        scope: sessionId ?? `slips-${hashOf(slips)}`,
        key,
        requestHash: hashOf({ sessionId, slips, form: parsed.form, giftcert: parsed.giftcert_code }),
        remainingMs: request.remainingMs(),
      },
      run,
    );
  };

export const recordQuery = z.strictObject({ events: flag });

/** GET booking/{id}: the record, by code or numeric id; with `events=1`, its audit trail. */
export const createGetBooking =
  (deps: BookingDeps): RouteHandler =>
  async ({ input, params, config, caller, now }) => {
    const query = parseInput(recordQuery, input);
    const record = await findBooking(deps.db, params.booking_id ?? '', caller);
    return {
      body: { booking: presentRecord(record, { config, caller, events: query.events === true, now }) },
      request: { id: record.booking.code, records: 1 },
    };
  };

export const invoiceQuery = z.strictObject({ token: z.optional(z.string().check(z.maxLength(128))) });

/**
 * GET booking/{id}/invoice: staff, or anyone with the booking's token (then 401 on a wrong token,
 * without saying whether the booking exists). HTML when the client asks for text/html.
 */
export const createGetInvoice =
  (deps: BookingDeps): RouteHandler =>
  async ({ input, params, config, caller, headers, apiUrl, requester, now }) => {
    const query = parseInput(invoiceQuery, input);
    const reference = params.booking_id ?? '';
    // Anyone else holds the token: checked as the guest's page checks it, under the same budget of wrong
    // guesses (issue 44), and answered 401 whether the booking or the token was wrong.
    const record =
      caller.kind === 'staff'
        ? await findBooking(deps.db, reference, caller)
        : await openGuestBooking({ db: deps.db, config, requester, now }, reference, query.token ?? '').catch(
            (error: unknown) => {
              if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
              throw new AuthError('unauthorized', 'Staff credentials or the booking token are required');
            },
          );
    const invoice = presentInvoice(record, config, apiUrl);
    if ((headers.accept ?? '').includes('text/html'))
      return {
        body: {},
        raw: { contentType: 'text/html; charset=utf-8', body: invoice.html },
        headers: { 'content-security-policy': PAGE_CSP },
      };
    return {
      body: { booking: { invoice } },
      request: { id: record.booking.code, records: 1, data: { url: invoiceUrl(record.booking, apiUrl) } },
    };
  };

const actionResult = (booking: { code: string }, record: Record<string, unknown>) => ({
  body: { booking: record },
  request: { id: booking.code, records: 1 },
});

const refreshed = async (deps: BookingDeps, request: ApiRequest, code: string) => {
  const record = await findBooking(deps.db, code, request.caller);
  return actionResult(
    record.booking,
    presentRecord(record, {
      config: request.config,
      caller: request.caller,
      events: false,
      now: request.now,
    }),
  );
};

export const checkSchema = z.strictObject({ note: flag });

/** POST booking/{id}/checkin and checkout (GET accepted): a note under the acting account unless note=0. */
export const createCheck =
  (deps: BookingDeps, direction: 'in' | 'out'): RouteHandler =>
  async (request) => {
    const query = parseInput(checkSchema, request.input);
    const booking = await checkInOrOut(await contextOf(deps, request), {
      reference: request.params.booking_id ?? '',
      direction,
      note: query.note !== false,
    });
    request.meter.count(METRIC.statusChanges);
    return refreshed(deps, request, booking.code);
  };

export const updateSchema = z.strictObject({
  status_id: z.optional(z.string().check(z.maxLength(16))),
  notify: flag,
  set_paid: flag,
});

/**
 * POST booking/{id}/update: `status_id` (required), `notify` (default 1, recorded on the event) and
 * `set_paid`; which changes are allowed is the domain's rule (`checkStatusChange`).
 */
export const createUpdate =
  (deps: BookingDeps): RouteHandler =>
  async (request) => {
    const query = parseInput(updateSchema, request.input);
    if (!query.status_id) throw validationError({ status_id: 'required' });
    const booking = await changeStatus(await contextOf(deps, request), {
      reference: request.params.booking_id ?? '',
      statusId: query.status_id,
      notify: query.notify,
      setPaid: query.set_paid,
    });
    request.meter.count(METRIC.statusChanges);
    return refreshed(deps, request, booking.code);
  };

export const bookmarkSchema = z.strictObject({ mark: booleanParam });

/** POST booking/{id}/bookmark: `mark` 1 sets, 0 clears the acting account's bookmark. */
export const createBookmark =
  (deps: BookingDeps): RouteHandler =>
  async (request) => {
    const query = parseInput(bookmarkSchema, request.input);
    const booking = await setBookmark(await contextOf(deps, request), {
      reference: request.params.booking_id ?? '',
      mark: query.mark,
    });
    return refreshed(deps, request, booking.code);
  };

export const noteSchema = z.strictObject({ body: z.string().check(z.maxLength(20_000)) });

/** POST booking/{id}/note: `body`, 1 to 3000 characters after trimming, authored by the acting account. */
export const createNote =
  (deps: BookingDeps): RouteHandler =>
  async (request) => {
    const query = parseInput(noteSchema, request.input);
    const booking = await addNote(await contextOf(deps, request), {
      reference: request.params.booking_id ?? '',
      body: query.body,
    });
    return refreshed(deps, request, booking.code);
  };

/** GET booking and booking/index: the list under "booking/index", filtered and paged. */
export const createListBookings =
  (deps: BookingDeps): RouteHandler =>
  async ({ input, config, caller, now }) => {
    const query = readListQuery(input, config, now);
    const { rows, total } = await listBookings(deps.db, { query, caller, config, now });
    const pages = Math.max(1, Math.ceil(total / query.limit));
    return {
      body: {
        'booking/index': Object.fromEntries(
          rows.map((booking) => [String(booking.booking_id), presentRow(booking, config)]),
        ),
      },
      request: {
        id: 'index',
        records: rows.length,
        limit: query.limit,
        page: query.page,
        pages,
        total_records: total,
      },
    };
  };
