import { expect } from 'vitest';
import type { createAllHandlers } from '#functions/index.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { formBody, invoke, type TestResponse } from './events.ts';

type Handlers = ReturnType<typeof createAllHandlers>;

/** A client of the session endpoints, as a widget would call them. */
export function sessionClient(handlers: Handlers) {
  const post = (path: string, fields: Record<string, string | string[]>, cookies?: string[]) =>
    invoke(handlers.session, {
      method: 'POST',
      path,
      body: formBody(fields),
      contentType: 'application/x-www-form-urlencoded',
      ...(cookies ? { cookies } : {}),
    });
  return {
    /** A SLIP for an item, rated with a query string. */
    slip: async (itemId: number, query: string): Promise<string> => {
      const { json } = await invoke(handlers.items, { path: `item/${itemId}`, query });
      const slip = json.item?.rate?.slip;
      if (!slip)
        throw new Error(`no slip for item ${itemId}: ${JSON.stringify(json.item?.rate ?? json.request)}`);
      return slip;
    },
    add: (slips: string[], sessionId?: string) =>
      post('booking/session', { 'slip[]': slips, ...(sessionId ? { session_id: sessionId } : {}) }),
    alter: (sessionId: string, changes: Record<string, string>) =>
      post('booking/session', {
        session_id: sessionId,
        ...Object.fromEntries(Object.entries(changes).map(([line, value]) => [`alter[${line}]`, value])),
      }),
    read: (sessionId: string) =>
      invoke(handlers.session, { path: 'booking/session', query: `session_id=${sessionId}` }),
    readByCookie: (cookies: string[]) => invoke(handlers.session, { path: 'booking/session', cookies }),
    clear: (sessionId: string) => post('booking/session/clear', { session_id: sessionId }),
    end: (sessionId: string) =>
      invoke(handlers.session, { path: 'booking/session/end', query: `session_id=${sessionId}` }),
  };
}

/** The session of a response. */
export const sessionOf = (response: TestResponse) => response.json.booking?.session;

/**
 * Asserts the stock invariant over the whole table (used = live holds + active bookings <= capacity), that
 * every client's hold budget agrees with its open sessions, and that no cart or booking line takes more of
 * its item now than it holds.
 */
export async function expectInvariant(db: Db, now = Date.now()): Promise<void> {
  const run = await runReconcile(db, { fix: false, now });
  expect(run.discrepancies).toEqual([]);
  expect(run.clientDiscrepancies).toEqual([]);
  expect(run.holderDiscrepancies.filter((entry) => entry.kind === 'takes_more')).toEqual([]);
}
