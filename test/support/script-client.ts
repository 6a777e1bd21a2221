import type { createAllHandlers } from '#functions/index.ts';
import { invoke } from './events.ts';

/** What a script client sends with every call, and whom its bookings are for. */
export interface ScriptClientOptions {
  /** Sent with every call, e.g. a staff or partner authorization. */
  headers?: Record<string, string>;
  /** The customer_name a booking gets when the call names none; the email is made from it. */
  customer?: string;
}

/**
 * A client of the cart, as a script (or a partner's integration) drives it in-process. At an `address`
 * every call comes from that one client; without one each call comes from a fresh address, as invoke's do.
 */
export const scriptClient = (
  handlers: ReturnType<typeof createAllHandlers>,
  address: string | undefined,
  options: ScriptClientOptions = {},
) => {
  const headers = options.headers ?? {};
  const from = address ? { sourceIp: address } : {};
  const post = (handler: 'session' | 'bookings', path: string, body: string) =>
    invoke(handlers[handler], {
      method: 'POST',
      path,
      body,
      contentType: 'application/x-www-form-urlencoded',
      headers,
      ...from,
    });
  const rate = (itemId: number, query: string) =>
    invoke(handlers.items, { path: `item/${itemId}`, query, headers, ...from });
  const slip = async (itemId: number, query: string): Promise<string> => {
    const { json } = await rate(itemId, query);
    const slip = json.item?.rate?.slip;
    // A test that expects a rating to fail asks rate; one that asks for a SLIP stops here, saying why.
    if (!slip) throw new Error(`no slip: ${JSON.stringify(json.item?.rate ?? json.request)}`);
    return slip;
  };
  const add = (slips: string[], cart: { sessionId?: string; altcha?: string } = {}) =>
    post(
      'session',
      'booking/session',
      [
        ...slips.map((slip) => `slip[]=${slip}`),
        ...(cart.sessionId ? [`session_id=${cart.sessionId}`] : []),
        ...(cart.altcha ? [`altcha=${encodeURIComponent(cart.altcha)}`] : []),
      ].join('&'),
    );
  return {
    rate,
    slip,
    add,
    /** Rates an item and holds its SLIP in a new cart. */
    hold: async (itemId: number, query: string) => add([await slip(itemId, query)]),
    alter: (sessionId: string, line: string, value: string) =>
      post('session', 'booking/session', `session_id=${sessionId}&alter[${line}]=${value}`),
    read: (sessionId: string) =>
      invoke(handlers.session, {
        path: 'booking/session',
        query: `session_id=${sessionId}`,
        headers,
        ...from,
      }),
    clear: (sessionId: string) => post('session', 'booking/session/clear', `session_id=${sessionId}`),
    end: (sessionId: string) => post('session', 'booking/session/end', `session_id=${sessionId}`),
    /** Books the cart for `who` (the client's customer, or Ada), at who@example.com. */
    book: (sessionId: string, who = options.customer ?? 'Ada') =>
      post(
        'bookings',
        'booking/create',
        `session_id=${sessionId}&form[customer_name]=${who}&form[customer_email]=${who.toLowerCase()}@example.com`,
      ),
  };
};

export type ScriptClient = ReturnType<typeof scriptClient>;
