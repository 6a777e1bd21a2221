import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse } from 'qs';
import { ROUTES } from './api-routes.ts';
import { StripeApiError, type StripeErrorBody, StripeParamError } from './errors.ts';
import type { Ledger } from './ledger.ts';
import { sweepExpired } from './operations.ts';
import { newId } from './state.ts';

/** A fault the API serves instead of (`before`) or after (`after`) doing what was asked. */
export interface ApiFault {
  /** `error`: a 500 `api_error`; `hang`: no answer at all (the client's timeout decides). */
  mode: 'error' | 'hang';
  /**
   * `before`: nothing runs and nothing is remembered (an outage in front of the API); `after`: the request
   * runs, and what is remembered under its `Idempotency-Key` is the 500 (`error`) or the real answer
   * (`hang`), as Stripe replays whatever it saved.
   */
  when: 'before' | 'after';
  count: number;
}

interface Answer {
  status: number;
  json: string;
  headers: Record<string, string>;
}

/** How long Stripe keeps an `Idempotency-Key`. */
const KEY_SECONDS = 24 * 60 * 60;

/** Parses Stripe's bracketed form encoding; lists of up to 100 stay arrays (qs stops at 20 by default). */
export const parseForm = (text: string) =>
  parse(text, { arrayLimit: 100, depth: 6, parameterLimit: 2000, allowPrototypes: false }) as Record<
    string,
    unknown
  >;

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/** The key a request carries: Bearer (as the SDK sends it) or Basic with the key as user (as curl -u). */
function presentedKey(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization ?? '';
  const [scheme, value = ''] = header.split(' ', 2);
  if (scheme?.toLowerCase() === 'bearer') return value.trim();
  if (scheme?.toLowerCase() === 'basic') return Buffer.from(value, 'base64').toString('utf8').split(':')[0];
  return undefined;
}

const masked = (key: string) => {
  const shown = Math.max(0, Math.min(8, key.length - 4));
  return `${key.slice(0, shown)}${'*'.repeat(Math.max(0, key.length - shown - 4))}${key.slice(-4)}`;
};

/** An id from the path; one that is not valid percent-encoding is kept as sent (and so names nothing). */
const decodePathId = (raw: string) => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
};

/** Stripe's `/v1` subset over HTTP: its key, its errors, its idempotency and its request ids. */
export class StripeApi {
  readonly #ledger: Ledger;
  readonly #secretKey: string;
  readonly faults: ApiFault[] = [];

  constructor(ledger: Ledger, secretKey: string) {
    this.#ledger = ledger;
    this.#secretKey = secretKey;
  }

  #prunedAt = Number.NEGATIVE_INFINITY;

  /** Drops keys older than 24 hours, once a minute of the stand-in's clock at most. */
  #forgetOldKeys(now: number): void {
    if (now - this.#prunedAt < 60) return;
    this.#prunedAt = now;
    const keys = this.#ledger.state.idempotency;
    for (const [name, record] of Object.entries(keys))
      if (record.created <= now - KEY_SECONDS) delete keys[name];
  }

  #takeFault(when: ApiFault['when']): ApiFault | undefined {
    const fault = this.faults[0];
    if (!fault || fault.when !== when) return undefined;
    fault.count -= 1;
    if (fault.count <= 0) this.faults.shift();
    return fault;
  }

  /** Answers one request whose path starts with `/v1/`. */
  handle(request: IncomingMessage, response: ServerResponse, body: string): void {
    const requestId = newId('req_', 14);
    const answer = this.#answer(request, body, requestId);
    // A hanging fault answers nothing: the socket stays open until the client gives up or the stand-in stops.
    if (!answer) return;
    const version = request.headers['stripe-version'];
    response.writeHead(answer.status, {
      'content-type': 'application/json',
      'request-id': requestId,
      'stripe-version': typeof version === 'string' ? version : this.#ledger.apiVersion,
      'cache-control': 'no-cache, no-store',
      ...(answer.status === 401 ? { 'www-authenticate': 'Basic realm="Stripe"' } : {}),
      ...answer.headers,
    });
    response.end(answer.json);
  }

  #answer(request: IncomingMessage, body: string, requestId: string): Answer | null {
    const method = (request.method ?? 'GET').toUpperCase();
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const send = (status: number, json: string, headers: Record<string, string> = {}): Answer => ({
      status,
      json,
      headers,
    });
    const sendError = (status: number, error: StripeErrorBody) =>
      send(status, JSON.stringify({ error }, null, 2));

    const key = presentedKey(request);
    if (!key)
      return sendError(401, {
        type: 'invalid_request_error',
        message:
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
      });
    if (!sameText(key, this.#secretKey))
      return sendError(401, {
        type: 'invalid_request_error',
        message: `Invalid API Key provided: ${masked(key)}`,
      });

    const before = this.#takeFault('before');
    if (before?.mode === 'hang') return null;
    if (before) return sendError(500, { type: 'api_error', message: 'An unknown error occurred' });

    const match = ROUTES.map((route) => ({
      route,
      found: route.method === method && route.path.exec(url.pathname),
    })).find((candidate) => candidate.found);
    if (!match?.found)
      return sendError(404, {
        type: 'invalid_request_error',
        message: `Unrecognized request URL (${method}: ${url.pathname}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
      });
    const params = parseForm(method === 'GET' ? url.search.slice(1) : body);
    const idempotencyKey = method === 'POST' ? request.headers['idempotency-key'] : undefined;
    const endpoint = `${method} ${url.pathname}`;
    const canonical = JSON.stringify(params);
    const store = this.#ledger.store;
    const now = store.now();

    if (typeof idempotencyKey === 'string') {
      this.#forgetOldKeys(now);
      const stored = store.state.idempotency[idempotencyKey];
      const first = stored && stored.created > now - KEY_SECONDS ? stored : undefined;
      if (first && first.endpoint !== endpoint)
        return sendError(400, {
          type: 'idempotency_error',
          message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${first.endpoint}' vs '${endpoint}'). Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
        });
      if (first && first.params !== canonical)
        return sendError(400, {
          type: 'idempotency_error',
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
        });
      if (first)
        return send(first.status, first.body, {
          'idempotency-key': idempotencyKey,
          'idempotent-replayed': 'true',
          'original-request': first.requestId,
        });
    }

    let status = 200;
    let json: string;
    try {
      sweepExpired(this.#ledger);
      const execute = match.route.prepare(params, decodePathId(match.found[1] ?? ''));
      json = JSON.stringify(
        execute(this.#ledger, {
          requestId,
          idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : null,
        }),
        null,
        2,
      );
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      // Validation failed: execution never began, so Stripe saves nothing under the key.
      if (error instanceof StripeParamError) {
        store.save();
        return sendError(error.status, error.body);
      }
      status = error.status;
      json = JSON.stringify({ error: error.body }, null, 2);
    }
    const after = this.#takeFault('after');
    if (after?.mode === 'error') {
      status = 500;
      json = JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }, null, 2);
    }
    if (typeof idempotencyKey === 'string')
      store.state.idempotency[idempotencyKey] = {
        key: idempotencyKey,
        endpoint,
        params: canonical,
        status,
        body: json,
        requestId,
        created: now,
      };
    store.save();
    if (after?.mode === 'hang') return null;
    return send(
      status,
      json,
      typeof idempotencyKey === 'string' ? { 'idempotency-key': idempotencyKey } : {},
    );
  }
}
